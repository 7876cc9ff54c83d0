package org.meshjava.energy;

import java.time.Duration;
import java.util.Objects;
import org.meshjava.core.Setting;

/**
 * How a liveness probe samples a counter (§3.3). The rule itself is fixed by the spec and not
 * configurable: the counter must advance in at least {@value #MIN_ADVANCING_INTERVALS} sample
 * intervals, in at least {@value #MIN_ADVANCING_PER_GROUP} of every {@value #GROUP} consecutive
 * intervals, over at least 300 ms, while the probing thread burns CPU. Only the sampling cadence
 * may be tuned, and never below what the rule needs. Immutable.
 *
 * <p>Between two samples the probe also polls the counter every {@code pollInterval}; the polls
 * take no part in the rule, they only time the counter's updates, so the meter learns its update
 * period (the longest gap seen between two changes) and can refuse windows too short for it.
 *
 * @param sampleInterval the time between samples; a counter that updates less often than this is
 *     lumpy at this resolution and is rejected, so it must exceed the counter's update period
 * @param probeDuration how long one probe samples; at least 300 ms and five intervals
 * @param pollInterval the time between polls that time the counter's updates; at most {@code
 *     sampleInterval} (equal means no polls between samples, and an update period learnt only to
 *     the sample interval)
 */
public record LivenessPolicy(
    Duration sampleInterval, Duration probeDuration, Duration pollInterval) {
  /** The fewest intervals in which the counter must advance. */
  public static final int MIN_ADVANCING_INTERVALS = 5;

  /** The size of each run of consecutive intervals checked for lumps. */
  public static final int GROUP = 5;

  /** How many intervals of every run of {@link #GROUP} must show an advance. */
  public static final int MIN_ADVANCING_PER_GROUP = 4;

  /** The shortest span a probe must observe. */
  public static final Duration MIN_SPAN = Duration.ofMillis(300);

  /** Validates that a probe under this policy can satisfy the rule at all. */
  public LivenessPolicy {
    Objects.requireNonNull(sampleInterval, "sampleInterval");
    Objects.requireNonNull(probeDuration, "probeDuration");
    Objects.requireNonNull(pollInterval, "pollInterval");
    Setting.positive("sampleInterval", sampleInterval, "must be positive: ");
    if (probeDuration.compareTo(MIN_SPAN) < 0) {
      throw new IllegalArgumentException(
          "probeDuration must be at least " + MIN_SPAN.toMillis() + " ms: " + probeDuration);
    }
    if (probeDuration.toNanos() / sampleInterval.toNanos() < MIN_ADVANCING_INTERVALS) {
      throw new IllegalArgumentException(
          "probeDuration "
              + probeDuration
              + " holds fewer than "
              + MIN_ADVANCING_INTERVALS
              + " intervals of "
              + sampleInterval);
    }
    if (pollInterval.isNegative()
        || pollInterval.isZero()
        || pollInterval.compareTo(sampleInterval) > 0) {
      throw new IllegalArgumentException(
          "pollInterval "
              + pollInterval
              + " must be positive and at most the sample interval "
              + sampleInterval);
    }
  }

  /** A policy that polls once a millisecond between its samples. */
  public LivenessPolicy(Duration sampleInterval, Duration probeDuration) {
    this(sampleInterval, probeDuration, min(Duration.ofMillis(1), sampleInterval));
  }

  /**
   * For RAPL and IOReport: 20 ms samples over 400 ms (twenty intervals), polled every 1 ms. RAPL
   * updates its counters about once a millisecond, so every 20 ms interval sees many updates.
   */
  public static LivenessPolicy standard() {
    return new LivenessPolicy(Duration.ofMillis(20), Duration.ofMillis(400), Duration.ofMillis(1));
  }

  /**
   * For NVML: 150 ms samples over 1.5 s (ten intervals), polled every 2 ms. NVML's energy counter
   * is refreshed every 20 to 100 ms depending on the board, so a 20 ms sample interval would call a
   * healthy counter lumpy; 150 ms leaves half a period of margin over the slowest.
   */
  public static LivenessPolicy nvml() {
    return new LivenessPolicy(
        Duration.ofMillis(150), Duration.ofMillis(1_500), Duration.ofMillis(2));
  }

  /** The number of sample intervals one probe takes. */
  int intervals() {
    long interval = sampleInterval.toNanos();
    return Math.toIntExact((probeDuration.toNanos() + interval - 1) / interval);
  }

  private static Duration min(Duration a, Duration b) {
    return a.compareTo(b) <= 0 ? a : b;
  }
}
