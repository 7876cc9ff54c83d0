package org.meshjava.energy;

import java.lang.foreign.MemorySegment;
import java.util.Objects;
import org.meshjava.core.EnergyDomain;

/** One GPU's NVML energy counter: mJ since driver load, converted to µJ. */
final class NvmlChannel implements EnergyChannel {
  private final NvmlLibrary nvml;
  private final int index;
  private final MemorySegment device;
  private final MemorySegment buffer;
  private final CounterAccumulator accumulator =
      new CounterAccumulator(CounterAccumulator.RANGE_2_64, 1_000);
  private boolean released;

  NvmlChannel(NvmlLibrary nvml, int index, MemorySegment device) {
    this.nvml = Objects.requireNonNull(nvml, "nvml");
    this.index = index;
    this.device = Objects.requireNonNull(device, "device");
    this.buffer = nvml.energyBuffer();
    nvml.retain();
  }

  @Override
  public String name() {
    return "nvml:gpu" + index;
  }

  @Override
  public EnergyDomain domain() {
    return EnergyDomain.gpu(index);
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
