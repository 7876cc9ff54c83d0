package org.meshjava.energy;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Samples several counters together for one probe and judges each by {@link LivenessRule}. All
 * counters share one probe so discovery costs one probe duration however many counters there
 * are. A counter whose read fails mid-probe is judged {@link CounterIssue#READ_FAILED}.
 */
final class LivenessProbe {

  /** A counter under probe. */
  interface Target {
    String name();

    long readTotalUj() throws CounterException;
  }

  private final LivenessPolicy policy;
  private final ProbeClock clock;

  LivenessProbe(LivenessPolicy policy, ProbeClock clock) {
    this.policy = Objects.requireNonNull(policy, "policy");
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  /** Probes {@code targets}, returning one verdict per target in the same order. */
  List<LivenessVerdict> probe(List<? extends Target> targets) {
    int intervals = policy.intervals();
    int n = targets.size();
    long[] times = new long[intervals + 1];
    long[][] totals = new long[n][intervals + 1];
    CounterException[] failures = new CounterException[n];
    long intervalNanos = policy.sampleInterval().toNanos();
    long start = clock.nanoTime();
    for (int s = 0; s <= intervals; s++) {
      if (s > 0) {
        clock.burnUntil(start + s * intervalNanos);
      }
      times[s] = clock.nanoTime();
      for (int t = 0; t < n; t++) {
        if (failures[t] != null) {
          continue;
        }
        try {
          totals[t][s] = targets.get(t).readTotalUj();
        } catch (CounterException e) {
          failures[t] = e;
        }
      }
    }
    List<LivenessVerdict> verdicts = new ArrayList<>(n);
    for (int t = 0; t < n; t++) {
      if (failures[t] != null) {
        verdicts.add(
            LivenessVerdict.notLive(
                failures[t].issue() == CounterIssue.COUNTER_RESET
                    ? CounterIssue.COUNTER_RESET
                    : CounterIssue.READ_FAILED,
                "read failed during probe: " + failures[t].getMessage()));
      } else {
        verdicts.add(LivenessRule.judge(times, totals[t]));
      }
    }
    return verdicts;
  }
}
