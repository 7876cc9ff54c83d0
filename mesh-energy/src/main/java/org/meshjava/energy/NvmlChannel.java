package org.meshjava.energy;

import java.lang.foreign.MemorySegment;
import java.util.Objects;
import org.meshjava.core.EnergyDomain;

/**
 * One GPU board's NVML energy counter, mJ since driver load converted to µJ, bound to the GPU an
 * engine sees ({@code gpu:n}, the {@code n}-th visible device) through the board's UUID.
 */
final class NvmlChannel extends SharedNativeChannel {
  private final NvmlLibrary nvml;
  private final MemorySegment device;
  private final MemorySegment buffer;
  private final CounterAccumulator accumulator =
      new CounterAccumulator(CounterAccumulator.RANGE_2_64, 1_000);

  NvmlChannel(NvmlLibrary nvml, EnergyDomain domain, String uuid, MemorySegment device) {
    Objects.requireNonNull(device, "device"); // before the library is retained
    super(NvmlDiscovery.counterName(Objects.requireNonNull(uuid, "uuid")), domain, nvml);
    this.nvml = nvml;
    this.device = device;
    this.buffer = nvml.energyBuffer();
  }

  /** NVML refreshes the counter every 20 to 100 ms, depending on the board. */
  @Override
  public boolean slowUpdating() {
    return true;
  }

  @Override
  long readRetained() throws CounterException {
    return accumulator.advance(nvml.totalEnergyMj(device, buffer), name());
  }
}
