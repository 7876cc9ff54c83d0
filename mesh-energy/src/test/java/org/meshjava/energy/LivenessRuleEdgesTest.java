package org.meshjava.energy;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The §3.3 liveness rule and its policy at their edges: exactly five advances, exactly five
 * intervals, a probe that does not start at time 0, and the update period a live verdict carries
 * (which the meter then holds every window to).
 */
class LivenessRuleEdgesTest {
  private static final long MS = 1_000_000L;

  /** Samples every {@code stepMs} from {@code startMs}; interval i advanced where '1'. */
  private static LivenessVerdict judge(String pattern, long startMs, long stepMs, long periodNs) {
    int n = pattern.length();
    long[] times = new long[n + 1];
    long[] totals = new long[n + 1];
    times[0] = startMs * MS;
    for (int i = 1; i <= n; i++) {
      times[i] = times[0] + i * stepMs * MS;
      totals[i] = totals[i - 1] + (pattern.charAt(i - 1) == '1' ? 17 : 0);
    }
    return LivenessRule.judge(times, totals, periodNs);
  }

  @Test
  void exactlyFiveAdvancingIntervals_overTheSpan_isLive() {
    assertThat(judge("11111", 0, 60, 0).isLive()).isTrue();
    assertThat(judge("11111", 0, 59, 0).issue()).contains(CounterIssue.PROBE_TOO_SHORT);
  }

  /** The span is the samples' own: a probe begins wherever the monotonic clock stands. */
  @Test
  void theSpan_isMeasuredFromTheFirstSample_notFromTimeZero() {
    assertThat(judge("1".repeat(14), 5_000, 20, 0).issue()).contains(CounterIssue.PROBE_TOO_SHORT);
    assertThat(judge("1".repeat(15), 5_000, 20, 0).isLive()).isTrue();
  }

  @Test
  void theUpdatePeriod_isTheLongestGapBetweenAdvancingSamples_whenThePollsDidNotTimeIt() {
    // Intervals 5 and 10 (of 20 ms) did not advance: the longest gap is 40 ms.
    LivenessVerdict v = judge("11110".repeat(4), 3_000, 20, 0);
    assertThat(v.isLive()).isTrue();
    assertThat(v.updatePeriodNanos()).isEqualTo(40 * MS);

    assertThat(judge("1".repeat(20), 3_000, 20, 0).updatePeriodNanos()).isEqualTo(20 * MS);
    assertThat(judge("1".repeat(20), 3_000, 20, 1_234).updatePeriodNanos()).isEqualTo(1_234);
  }

  @Test
  void aPolicyOfExactlyFiveIntervals_isAccepted() {
    LivenessPolicy five = new LivenessPolicy(Duration.ofMillis(60), Duration.ofMillis(300));
    assertThat(five.intervals()).isEqualTo(5);
  }

  /** The default poll is once a millisecond, but never slower than the samples themselves. */
  @Test
  void aSampleIntervalUnderAMillisecond_isPolledAtTheSampleInterval() {
    Duration half = Duration.ofNanos(500_000);
    LivenessPolicy p = new LivenessPolicy(half, Duration.ofMillis(300));
    assertThat(p.pollInterval()).isEqualTo(half);
    assertThat(new LivenessPolicy(Duration.ofMillis(20), Duration.ofMillis(400)).pollInterval())
        .isEqualTo(Duration.ofMillis(1));
    assertThat(new LivenessPolicy(Duration.ofMillis(1), Duration.ofMillis(400)).pollInterval())
        .isEqualTo(Duration.ofMillis(1));
  }
}
