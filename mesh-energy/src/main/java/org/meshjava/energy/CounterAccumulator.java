package org.meshjava.energy;

/**
 * Turns a wrapping raw counter into a monotonic total. Design note: a raw counter wraps at a known
 * range (RAPL: {@code max_energy_range_uj}; NVML: 2^64). Between two reads we assume at most one
 * wrap, so a read that is smaller than the previous one means the counter passed its range once:
 * {@code delta = range - previous + current}. That holds as long as the counter is read more often
 * than it can wrap (minutes for RAPL at full package power); the meter reads on every window open
 * and close and every probe sample. A counter with no range (2^64) that appears to move backwards
 * by more than half its range has been reset, which no arithmetic can recover, so it is reported as
 * {@link CounterIssue#COUNTER_RESET}. Not thread-safe.
 */
final class CounterAccumulator {
  /** Marks a 64-bit unsigned counter: it wraps at 2^64. */
  static final long RANGE_2_64 = 0;

  private final long range;
  private final long ujPerUnit;
  private boolean started;
  private long previousRaw;
  private long totalUj;

  /**
   * @param range the value at which the raw counter wraps back to 0 ({@link #RANGE_2_64} for
   *     unsigned 64-bit)
   * @param ujPerUnit microjoules per raw unit (1 for RAPL, 1000 for NVML's millijoules)
   */
  CounterAccumulator(long range, long ujPerUnit) {
    if (range < 0) {
      throw new IllegalArgumentException("range must be non-negative: " + range);
    }
    if (ujPerUnit <= 0) {
      throw new IllegalArgumentException("ujPerUnit must be positive: " + ujPerUnit);
    }
    this.range = range;
    this.ujPerUnit = ujPerUnit;
  }

  /**
   * Folds in a raw reading and returns the total µJ since the first one.
   *
   * @throws CounterException if the reading is outside the range or implies a reset
   */
  long advance(long raw, String counter) throws CounterException {
    if (range != RANGE_2_64 && (raw < 0 || raw > range)) {
      throw new CounterException(
          CounterIssue.COUNTER_RESET, counter + " read " + raw + ", outside its range 0.." + range);
    }
    if (!started) {
      started = true;
      previousRaw = raw;
      return 0;
    }
    long delta;
    if (range == RANGE_2_64) {
      delta = raw - previousRaw; // unsigned subtraction modulo 2^64
      if (delta < 0) {
        long was = previousRaw;
        previousRaw = raw; // re-baseline, so the next read counts from here
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
      delta = raw >= previousRaw ? raw - previousRaw : range - previousRaw + raw;
    }
    previousRaw = raw;
    try {
      totalUj = Math.addExact(totalUj, Math.multiplyExact(delta, ujPerUnit));
    } catch (ArithmeticException e) {
      throw new CounterException(
          CounterIssue.COUNTER_RESET, counter + " total overflowed; treating as a reset", e);
    }
    return totalUj;
  }
}
