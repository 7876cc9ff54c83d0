package org.meshjava.energy;

import java.lang.foreign.MemorySegment;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
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

  private PowerBound bound;
  private boolean boundSettled;
  private String boundNote;

  /**
   * A board's counter, held to {@code maxWatts}: {@link PowerBound#GPU_BOARD}'s figure, or twice
   * the most its power limit may be set to where that is higher.
   *
   * @param boundSettled whether {@code maxWatts} is final: false when the board's power-limit range
   *     could not be read for a passing reason, so that each probe of the board asks again
   * @param boundNote where {@code maxWatts} came from, for the counter's status
   */
  NvmlChannel(
      NvmlLibrary nvml,
      EnergyDomain domain,
      String uuid,
      MemorySegment device,
      long maxWatts,
      boolean boundSettled,
      String boundNote) {
    Objects.requireNonNull(device, "device"); // before the library is retained
    super(NvmlDiscovery.counterName(Objects.requireNonNull(uuid, "uuid")), domain, nvml);
    this.nvml = nvml;
    this.device = device;
    this.buffer = nvml.energyBuffer();
    this.bound = new PowerBound(maxWatts, PowerBound.GPU_BOARD.slackNanos());
    this.boundSettled = boundSettled;
    this.boundNote = Objects.requireNonNull(boundNote, "boundNote");
  }

  /**
   * The board's UUID, as its name carries it: the same board whichever index or {@code
   * CUDA_VISIBLE_DEVICES} a meter reached it by.
   */
  @Override
  public Object hardware() {
    return name();
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

  /** The bound and where it came from: an operator reads here why a board's draw is refused. */
  @Override
  public Optional<String> statusNote() {
    return Optional.of("held to " + bound.watts() + " W, " + boundNote);
  }

  /**
   * Asks the board's power-limit range again while discovery could not read it for a passing
   * reason: held to 2 kW meanwhile, a board settable past that would have its own draw refused as
   * resets for the life of the process. One call per probe (the meter's background thread, never a
   * serve's), until the board answers or fails for good.
   */
  @Override
  public void recheckAtProbe() {
    if (boundSettled || isReleased()) {
      return;
    }
    try {
      OptionalLong milliwatts = nvml.maxPowerLimitMw(device);
      settle(milliwatts);
    } catch (CounterException e) {
      boundSettled = e.issue() != CounterIssue.READ_FAILED;
      boundNote = NvmlDiscovery.unreadLimitNote(e, boundSettled);
    }
  }

  private void settle(OptionalLong milliwatts) {
    Bound b = Bound.of(milliwatts);
    bound = new PowerBound(b.watts(), PowerBound.GPU_BOARD.slackNanos());
    boundNote = b.note();
    boundSettled = true;
  }

  /**
   * The most power a board is taken to draw and why: twice the most its power limit may be set to,
   * never less than {@link PowerBound#GPU_BOARD}'s 2 kW (SPEC.md 40 §3).
   */
  record Bound(long watts, String note) {
    static Bound of(OptionalLong milliwatts) {
      long floor = PowerBound.GPU_BOARD.watts();
      if (milliwatts.isEmpty()) {
        return new Bound(floor, "the floor: the board gives no settable power limit");
      }
      long limitWatts = Math.ceilDiv(milliwatts.getAsLong(), 1_000L);
      return new Bound(
          PowerBound.aboveLimit(limitWatts, floor),
          "twice its settable power limit of " + limitWatts + " W, at least " + floor + " W");
    }
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
