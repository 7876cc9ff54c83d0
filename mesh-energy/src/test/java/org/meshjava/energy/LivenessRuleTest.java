package org.meshjava.energy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The §3.3 liveness rule on scripted advance patterns. */
class LivenessRuleTest {
  private static final long MS = 1_000_000L;

  /** Samples every {@code stepMs}; interval i advanced where {@code pattern[i]} is '1'. */
  private static LivenessVerdict judge(String pattern, long stepMs) {
    int n = pattern.length();
    long[] times = new long[n + 1];
    long[] totals = new long[n + 1];
    for (int i = 1; i <= n; i++) {
      times[i] = i * stepMs * MS;
      totals[i] = totals[i - 1] + (pattern.charAt(i - 1) == '1' ? 17 : 0);
    }
    return LivenessRule.judge(times, totals);
  }

  @Test
  void judge_whenAdvancingEveryInterval_isLive() {
    assertThat(judge("1".repeat(20), 20).isLive()).isTrue();
  }

  @Test
  void judge_whenMissingOneInEveryFive_isLive() {
    assertThat(judge("11110".repeat(4), 20).isLive()).isTrue();
  }

  @Test
  void judge_whenNeverAdvancing_isFrozen() {
    assertThat(judge("0".repeat(20), 20).issue()).contains(CounterIssue.FROZEN);
  }

  @Test
  void judge_whenAdvancingEveryOtherInterval_isLumpy() {
    assertThat(judge("10".repeat(10), 20).issue()).contains(CounterIssue.LUMPY);
  }

  @Test
  void judge_whenTwoMissesFallInOneRunOfFive_isLumpy() {
    // Disjoint blocks 11110 and 01111 hold four each, but the run 11100 between them holds three.
    assertThat(judge("1111001111" + "1111011110", 20).issue()).contains(CounterIssue.LUMPY);
  }

  @Test
  void judge_whenOneBurstThenFrozen_isLumpy() {
    assertThat(judge("1111100000" + "0000000000", 20).issue()).contains(CounterIssue.LUMPY);
  }

  @Test
  void judge_whenFewerThanFiveIntervals_isTooFewAdvances() {
    assertThat(judge("1111", 100).issue()).contains(CounterIssue.TOO_FEW_ADVANCES);
  }

  @Test
  void judge_whenSpanUnder300ms_isProbeTooShort() {
    assertThat(judge("1".repeat(14), 20).issue()).contains(CounterIssue.PROBE_TOO_SHORT);
    assertThat(judge("1".repeat(15), 20).isLive()).isTrue();
  }

  @Test
  void judge_whenCounterMovesBackwards_doesNotCountItAsAnAdvance() {
    long[] times = {0, 100 * MS, 200 * MS, 300 * MS, 400 * MS, 500 * MS, 600 * MS};
    long[] totals = {10, 9, 8, 7, 6, 5, 4};
    assertThat(LivenessRule.judge(times, totals).issue()).contains(CounterIssue.FROZEN);
  }

  @Test
  void judge_matchesAnIndependentReadingOfTheRule_randomised() {
    long seed = new Random().nextLong();
    Random rnd = new Random(seed);
    for (int round = 0; round < 5_000; round++) {
      int n = rnd.nextInt(25);
      double p = rnd.nextDouble();
      StringBuilder b = new StringBuilder();
      for (int i = 0; i < n; i++) {
        b.append(rnd.nextDouble() < p ? '1' : '0');
      }
      String pattern = b.toString();
      long stepMs = 10 + rnd.nextInt(40);
      boolean expected =
          pattern.chars().filter(c -> c == '1').count() >= 5
              && n * stepMs >= 300
              && !hasRunOfFiveWithTwoZeros(pattern);
      assertThat(judge(pattern, stepMs).isLive())
          .as("seed %d round %d pattern %s step %d", seed, round, pattern, stepMs)
          .isEqualTo(expected);
    }
  }

  private static boolean hasRunOfFiveWithTwoZeros(String pattern) {
    for (int i = 0; i + 5 <= pattern.length(); i++) {
      String run = pattern.substring(i, i + 5);
      if (run.replace("1", "").length() >= 2) {
        return true;
      }
    }
    return false;
  }

  @Test
  void policy_belowTheRule_isRefused() {
    assertThatThrownBy(() -> new LivenessPolicy(Duration.ofMillis(20), Duration.ofMillis(299)))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new LivenessPolicy(Duration.ofMillis(100), Duration.ofMillis(400)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("fewer than 5");
    // The operator's words, unchanged since the check moved to Setting.positive.
    assertThatThrownBy(() -> new LivenessPolicy(Duration.ZERO, Duration.ofMillis(400)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("sampleInterval must be positive: PT0S");
    assertThat(LivenessPolicy.standard().intervals()).isEqualTo(20);
  }
}
