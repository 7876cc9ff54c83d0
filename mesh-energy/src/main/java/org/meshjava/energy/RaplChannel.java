package org.meshjava.energy;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.Path;
import java.util.Objects;
import org.meshjava.core.EnergyDomain;

/** One powercap zone's {@code energy_uj}, with wraparound at {@code max_energy_range_uj}. */
final class RaplChannel implements EnergyChannel {
  private final String name;
  private final EnergyDomain domain;
  private final Path energyFile;
  private final SysfsReader reader;
  private final CounterAccumulator accumulator;

  RaplChannel(String name, EnergyDomain domain, Path energyFile, long rangeUj, SysfsReader reader) {
    this.name = Objects.requireNonNull(name, "name");
    this.domain = Objects.requireNonNull(domain, "domain");
    this.energyFile = Objects.requireNonNull(energyFile, "energyFile");
    this.reader = Objects.requireNonNull(reader, "reader");
    this.accumulator = new CounterAccumulator(rangeUj, 1);
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public EnergyDomain domain() {
    return domain;
  }

  @Override
  public long readTotalUj() throws CounterException {
    return accumulator.advance(readRaw(), name);
  }

  /** Reads {@code energy_uj} as a number of µJ. */
  long readRaw() throws CounterException {
    String text;
    try {
      text = reader.read(energyFile);
    } catch (AccessDeniedException e) {
      throw new CounterException(
          CounterIssue.UNREADABLE,
          energyFile + " is not readable by this process (most distributions have made RAPL"
              + " energy_uj root-only since 2020)",
          e);
    } catch (IOException e) {
      throw new CounterException(
          CounterIssue.UNREADABLE, "cannot read " + energyFile + ": " + e, e);
    }
    try {
      return Long.parseLong(text);
    } catch (NumberFormatException e) {
      throw new CounterException(
          CounterIssue.READ_FAILED, energyFile + " holds '" + text + "', not a number", e);
    }
  }
}
