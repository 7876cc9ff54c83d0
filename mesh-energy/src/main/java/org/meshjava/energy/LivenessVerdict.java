package org.meshjava.energy;

import java.util.Objects;
import java.util.Optional;

/**
 * The outcome of judging one counter's probe samples.
 *
 * @param issue absent when the counter is live
 * @param detail the facts (intervals seen, advancing count, span) for logs
 */
record LivenessVerdict(Optional<CounterIssue> issue, String detail) {
  LivenessVerdict {
    Objects.requireNonNull(issue, "issue");
    Objects.requireNonNull(detail, "detail");
  }

  static LivenessVerdict live(String detail) {
    return new LivenessVerdict(Optional.empty(), detail);
  }

  static LivenessVerdict notLive(CounterIssue issue, String detail) {
    return new LivenessVerdict(Optional.of(issue), detail);
  }

  boolean isLive() {
    return issue.isEmpty();
  }
}
