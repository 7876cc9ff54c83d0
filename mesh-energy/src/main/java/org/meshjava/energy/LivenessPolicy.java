package org.meshjava.energy;

import java.time.Duration;
import java.util.Objects;

/**
 * How a liveness probe samples a counter (§3.3). The rule itself is fixed by the spec and not
 * configurable: the counter must advance in at least {@value #MIN_ADVANCING_INTERVALS} sample
 * intervals, in at least {@value #MIN_ADVANCING_PER_GROUP} of every {@value #GROUP} consecutive
 * intervals, over at least 300 ms, while the probing thread burns CPU. Only the sampling cadence
 * may be tuned, and never below what the rule needs. Immutable.
 *
 * @param sampleInterval the time between samples; a counter that updates less often than this
 *     is lumpy at this resolution and is rejected
 * @param probeDuration how long one probe samples; at least 300 ms and five intervals
 */
public record LivenessPolicy(Duration sampleInterval, Duration probeDuration) {
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
    if (sampleInterval.isNegative() || sampleInterval.isZero()) {
      throw new IllegalArgumentException("sampleInterval must be positive: " + sampleInterval);
    }
    if (probeDuration.compareTo(MIN_SPAN) < 0) {
      throw new IllegalArgumentException(
          "probeDuration must be at least " + MIN_SPAN.toMillis() + " ms: " + probeDuration);
    }
    if (probeDuration.toNanos() / sampleInterval.toNanos() < MIN_ADVANCING_INTERVALS) {
      throw new IllegalArgumentException(
          "probeDuration " + probeDuration + " holds fewer than " + MIN_ADVANCING_INTERVALS
              + " intervals of " + sampleInterval);
    }
  }

  /** 20 ms samples over 400 ms: twenty intervals, well inside the rule. */
  public static LivenessPolicy standard() {
    return new LivenessPolicy(Duration.ofMillis(20), Duration.ofMillis(400));
  }

  /** The number of sample intervals one probe takes. */
  int intervals() {
    long interval = sampleInterval.toNanos();
    return Math.toIntExact((probeDuration.toNanos() + interval - 1) / interval);
  }
}
