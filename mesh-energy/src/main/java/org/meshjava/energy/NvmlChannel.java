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

  private final PowerBound bound;

  /**
   * A board's counter, held to {@code maxWatts}: {@link PowerBound#GPU_BOARD}'s figure, or twice
   * the most its power limit may be set to where that is higher.
   */
  NvmlChannel(
      NvmlLibrary nvml, EnergyDomain domain, String uuid, MemorySegment device, long maxWatts) {
    Objects.requireNonNull(device, "device"); // before the library is retained
    super(NvmlDiscovery.counterName(Objects.requireNonNull(uuid, "uuid")), domain, nvml);
    this.nvml = nvml;
    this.device = device;
    this.buffer = nvml.energyBuffer();
    this.bound = new PowerBound(maxWatts, PowerBound.GPU_BOARD.slackNanos());
  }

  /**
   * The board's bound. A fixed 2 kW holds boards of today (700 W to 1.4 kW limits) at 1.4 times
   * theirs or more, but would refuse as resets the draw of a board whose limit may be set near or
   * past it.
   */
  @Override
  public PowerBound powerBound() {
    return bound;
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
