package org.meshjava.energy;

import java.lang.foreign.MemorySegment;
import java.util.Objects;
import org.meshjava.core.EnergyDomain;

/**
 * One GPU board's NVML energy counter, mJ since driver load converted to µJ, bound to the GPU an
 * engine sees ({@code gpu:n}, the {@code n}-th visible device) through the board's UUID.
 */
final class NvmlChannel implements EnergyChannel {
  private final NvmlLibrary nvml;
  private final EnergyDomain domain;
  private final String uuid;
  private final MemorySegment device;
  private final MemorySegment buffer;
  private final CounterAccumulator accumulator =
      new CounterAccumulator(CounterAccumulator.RANGE_2_64, 1_000);
  private boolean released;

  NvmlChannel(NvmlLibrary nvml, EnergyDomain domain, String uuid, MemorySegment device) {
    this.nvml = Objects.requireNonNull(nvml, "nvml");
    this.domain = Objects.requireNonNull(domain, "domain");
    this.uuid = Objects.requireNonNull(uuid, "uuid");
    this.device = Objects.requireNonNull(device, "device");
    this.buffer = nvml.energyBuffer();
    nvml.retain();
  }

  @Override
  public String name() {
    return NvmlDiscovery.counterName(uuid);
  }

  @Override
  public EnergyDomain domain() {
    return domain;
  }

  /** NVML refreshes the counter every 20 to 100 ms, depending on the board. */
  @Override
  public boolean slowUpdating() {
    return true;
  }

  @Override
  public long readTotalUj() throws CounterException {
    if (released) {
      throw new CounterException(CounterIssue.READ_FAILED, name() + " was released");
    }
    return accumulator.advance(nvml.totalEnergyMj(device, buffer), name());
  }

  @Override
  public void release() {
    if (!released) {
      released = true;
      nvml.release();
    }
  }
}
