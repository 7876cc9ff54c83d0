package org.meshjava.energy;

import java.util.Objects;
import java.util.Optional;

/**
 * The outcome of judging one counter's probe samples.
 *
 * @param issue absent when the counter is live
 * @param detail the facts (intervals seen, advancing count, span, update period) for logs
 * @param updatePeriodNanos for a live counter, the longest gap the probe saw between two changes of
 *     its value: an upper bound on how often it updates, to the probe's poll resolution; 0 for a
 *     counter that is not live
 */
record LivenessVerdict(Optional<CounterIssue> issue, String detail, long updatePeriodNanos) {
  LivenessVerdict {
    Objects.requireNonNull(issue, "issue");
    Objects.requireNonNull(detail, "detail");
    if (issue.isEmpty() != updatePeriodNanos > 0) {
      throw new IllegalArgumentException(
          "a live verdict carries a positive update period, and only a live one: "
              + issue
              + " "
              + updatePeriodNanos);
    }
  }

  static LivenessVerdict live(String detail, long updatePeriodNanos) {
    return new LivenessVerdict(Optional.empty(), detail, updatePeriodNanos);
  }

  static LivenessVerdict notLive(CounterIssue issue, String detail) {
    return new LivenessVerdict(Optional.of(issue), detail, 0);
  }

  boolean isLive() {
    return issue.isEmpty();
  }
}
