package org.meshjava.energy;

import org.jspecify.annotations.Nullable;
import org.meshjava.core.Unsigned;

/**
 * Turns a wrapping raw counter into a monotonic total. Design note: a raw counter wraps at a known
 * range (RAPL: {@code max_energy_range_uj}; NVML: 2^64). Between two reads we assume at most one
 * wrap, so a read that is smaller than the previous one means the counter passed its range once:
 * {@code delta = range - previous + step + current}, where {@code step} is what the counter's move
 * from its range back to 0 adds (RAPL: one energy unit, since the file reads the range itself
 * before it wraps; 0 for a counter that never reads its range). That holds as long as the counter
 * is read more often than it can wrap (minutes for RAPL at full package power); the meter reads on
 * every window open and close and every probe sample. A counter with no range (2^64) that appears
 * to move backwards by more than half its range has been reset, which no arithmetic can recover, so
 * it is reported as {@link CounterIssue#COUNTER_RESET}.
 *
 * <p>A counter with a range cannot tell a reset (suspend to RAM, a package reset, a driver that
 * republishes an older value) from a wrap by its values alone: both read back smaller. Time can: an
 * accumulator given the most power its domain can draw refuses any increment larger than that power
 * could have added between the previous read's start and this read's end (plus a slack for the
 * counter's own refresh lag), as {@link CounterIssue#COUNTER_RESET}, and counts on from the new
 * value. A wrap taken at the same bound as the read-gap rule is thereby the only reading of a
 * smaller value that is believed. Not thread-safe.
 */
final class CounterAccumulator {
  /** Marks a 64-bit unsigned counter: it wraps at 2^64. */
  static final long RANGE_2_64 = 0;

  private final long range;
  private final long wrapStep;
  private final long ujPerUnit;
  private final @Nullable PowerBound bound;
  private boolean started;
  private long previousRaw;
  private long previousReadStartNanos;
  private long totalUj;

  /**
   * @param range the value at which the raw counter wraps back to 0 ({@link #RANGE_2_64} for
   *     unsigned 64-bit)
   * @param ujPerUnit microjoules per raw unit (1 for RAPL, 1000 for NVML's millijoules)
   */
  CounterAccumulator(long range, long ujPerUnit) {
    this(range, ujPerUnit, 0, 0);
  }

  /**
   * An accumulator that also refuses increments its domain cannot have drawn.
   *
   * @param range as for {@link #CounterAccumulator(long, long)}
   * @param ujPerUnit as for {@link #CounterAccumulator(long, long)}
   * @param maxWatts the most power the domain is assumed to draw; 0 for no bound
   * @param slackNanos time added to every gap between reads: the counter's value may lag the energy
   *     drawn by up to one refresh
   */
  CounterAccumulator(long range, long ujPerUnit, long maxWatts, long slackNanos) {
    this(range, 0, ujPerUnit, maxWatts, slackNanos);
  }

  /**
   * A power-bounded accumulator of a counter that reads its range itself before it wraps.
   *
   * @param range the largest value the raw counter reads
   * @param wrapStep what the counter's move from {@code range} back to 0 adds, in raw units: the
   *     counter's own resolution for one that reads its range (RAPL), 0 for one that wraps as it
   *     reaches it
   * @param ujPerUnit as for {@link #CounterAccumulator(long, long)}
   * @param maxWatts as for {@link #CounterAccumulator(long, long, long, long)}
   * @param slackNanos as for {@link #CounterAccumulator(long, long, long, long)}
   */
  CounterAccumulator(long range, long wrapStep, long ujPerUnit, long maxWatts, long slackNanos) {
    if (range < 0) {
      throw new IllegalArgumentException("range must be non-negative: " + range);
    }
    if (wrapStep < 0 || (range == RANGE_2_64 && wrapStep != 0) || wrapStep > range) {
      throw new IllegalArgumentException(
          "wrapStep must be between 0 and the range, and 0 for a 64-bit counter: " + wrapStep);
    }
    if (ujPerUnit <= 0) {
      throw new IllegalArgumentException("ujPerUnit must be positive: " + ujPerUnit);
    }
    if (maxWatts < 0 || slackNanos < 0) {
      throw new IllegalArgumentException(
          "maxWatts and slackNanos must be non-negative: " + maxWatts + ", " + slackNanos);
    }
    this.range = range;
    this.wrapStep = wrapStep;
    this.ujPerUnit = ujPerUnit;
    this.bound = maxWatts == 0 ? null : new PowerBound(maxWatts, slackNanos);
  }

  /**
   * Folds in a raw reading and returns the total µJ since the first one; for an accumulator with no
   * power bound, which needs no times.
   *
   * @throws CounterException if the reading is outside the range or implies a reset
   */
  long advance(long raw, String counter) throws CounterException {
    if (bound != null) {
      throw new IllegalStateException("a power-bounded accumulator needs the read's times");
    }
    return advance(raw, counter, 0, 0);
  }

  /**
   * Folds in a raw reading taken between {@code readStartNanos} and {@code readEndNanos} and
   * returns the total µJ since the first one.
   *
   * @throws CounterException if the reading is outside the range or implies a reset, including an
   *     increment larger than {@code maxWatts} could have added since the previous read began
   */
  long advance(long raw, String counter, long readStartNanos, long readEndNanos)
      throws CounterException {
    if (range != RANGE_2_64 && (raw < 0 || raw > range)) {
      throw new CounterException(
          CounterIssue.COUNTER_RESET, counter + " read " + raw + ", outside its range 0.." + range);
    }
    if (!started) {
      started = true;
      previousRaw = raw;
      previousReadStartNanos = readStartNanos;
      return 0;
    }
    long delta;
    if (range == RANGE_2_64) {
      delta = raw - previousRaw; // unsigned subtraction modulo 2^64
      if (delta < 0) {
        long was = previousRaw;
        previousRaw = raw; // re-baseline, so the next read counts from here
        previousReadStartNanos = readStartNanos;
        throw new CounterException(
            CounterIssue.COUNTER_RESET,
            counter
                + " moved from "
                + Long.toUnsignedString(was)
                + " to "
                + Long.toUnsignedString(raw)
                + ": a reset, not a wrap");
      }
    } else {
      // range - previousRaw + raw is below range (raw < previousRaw); the step, at most the range,
      // could still pass 2^63 on a garbage range, and the power bound then refuses the sum.
      delta =
          raw >= previousRaw
              ? raw - previousRaw
              : Unsigned.saturatingAdd(range - previousRaw + raw, wrapStep);
    }
    long was = previousRaw;
    long sinceNanos = readEndNanos - previousReadStartNanos;
    previousRaw = raw;
    previousReadStartNanos = readStartNanos;
    if (bound != null && delta > bound.mostDrawnUj(sinceNanos) / ujPerUnit) {
      long deltaUj = delta > Long.MAX_VALUE / ujPerUnit ? Long.MAX_VALUE : delta * ujPerUnit;
      throw new CounterException(
          CounterIssue.COUNTER_RESET,
          counter
              + " moved from "
              + was
              + " to "
              + raw
              + " in "
              + sinceNanos / 1_000_000
              + " ms: "
              + (raw < was ? "as a wrap, " : "")
              + deltaUj
              + " µJ, more than "
              + bound.watts()
              + " W can draw, so the counter was reset; counting on from "
              + raw);
    }
    try {
      totalUj = Math.addExact(totalUj, Math.multiplyExact(delta, ujPerUnit));
    } catch (ArithmeticException e) {
      throw new CounterException(
          CounterIssue.COUNTER_RESET, counter + " total overflowed; treating as a reset", e);
    }
    return totalUj;
  }
}
