package org.meshjava.energy;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.Path;
import java.util.Objects;
import org.meshjava.core.EnergyDomain;

/** One powercap zone's {@code energy_uj}, with wraparound at {@code max_energy_range_uj}. */
final class RaplChannel extends NamedChannel {
  /**
   * The most power one zone is assumed to draw, for the wrap bound. Server packages are rated at up
   * to about 500 W; twice that leaves room for excursions above the rating. At 1 kW the smallest
   * ranges seen (about 65 kJ) wrap in a little over a minute.
   */
  static final long ASSUMED_MAX_WATTS = 1_000;

  private final Path energyFile;
  private final SysfsReader reader;
  private final long rangeUj;
  private final CounterAccumulator accumulator;

  RaplChannel(String name, EnergyDomain domain, Path energyFile, long rangeUj, SysfsReader reader) {
    super(name, domain);
    this.energyFile = Objects.requireNonNull(energyFile, "energyFile");
    this.reader = Objects.requireNonNull(reader, "reader");
    this.rangeUj = rangeUj;
    this.accumulator = new CounterAccumulator(rangeUj, 1);
  }

  /**
   * The time the counter takes to run through its whole range at {@link #ASSUMED_MAX_WATTS}: read
   * at least this often, it cannot wrap twice between two reads.
   */
  @Override
  public long maxReadGapNanos() {
    // range µJ at P W (P µJ per µs) takes range / P µs.
    return Math.multiplyExact(rangeUj / ASSUMED_MAX_WATTS, 1_000L);
  }

  long rangeUj() {
    return rangeUj;
  }

  @Override
  public long readTotalUj() throws CounterException {
    return accumulator.advance(readRaw(), name());
  }

  /** Reads {@code energy_uj} as a number of µJ. */
  long readRaw() throws CounterException {
    String text;
    try {
      text = reader.read(energyFile);
    } catch (AccessDeniedException e) {
      throw new CounterException(
          CounterIssue.UNREADABLE,
          energyFile
              + " is not readable by this process (energy_uj has been root-only since the"
              + " 2020 fix for CVE-2020-8694)",
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
