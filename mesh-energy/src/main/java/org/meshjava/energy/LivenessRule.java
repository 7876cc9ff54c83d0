package org.meshjava.energy;

import java.util.Locale;

/**
 * The §3.3 liveness rule as a pure function of probe samples, so it can be tested on scripted
 * sequences without a clock.
 *
 * <p>Interval {@code i} is the time between sample {@code i-1} and sample {@code i}; it "advanced"
 * when the total grew. "At least 4 of every 5" is read as a sliding window: every run of five
 * consecutive intervals must hold at least four advances. That is stricter than disjoint blocks,
 * and a counter that publishes every other interval, or in bursts, fails it. Stateless.
 */
final class LivenessRule {
  private LivenessRule() {}

  /**
   * Judges a probe.
   *
   * @param timesNanos the monotonic time of each sample
   * @param totalsUj the counter total at each sample
   */
  static LivenessVerdict judge(long[] timesNanos, long[] totalsUj) {
    return judge(timesNanos, totalsUj, 0);
  }

  /**
   * Judges a probe whose polls saw the counter change at most every {@code updatePeriodNanos} (0
   * when unknown: the period is then taken as the longest gap between advancing samples).
   */
  static LivenessVerdict judge(long[] timesNanos, long[] totalsUj, long updatePeriodNanos) {
    if (timesNanos.length != totalsUj.length) {
      throw new IllegalArgumentException(
          "sample arrays differ in length: " + timesNanos.length + " vs " + totalsUj.length);
    }
    int intervals = Math.max(0, timesNanos.length - 1);
    boolean[] advanced = new boolean[intervals];
    int advances = 0;
    for (int i = 0; i < intervals; i++) {
      advanced[i] = totalsUj[i + 1] > totalsUj[i];
      if (advanced[i]) {
        advances++;
      }
    }
    long spanNanos = intervals == 0 ? 0 : timesNanos[intervals] - timesNanos[0];
    String facts =
        advances
            + " of "
            + intervals
            + " intervals advanced over "
            + (spanNanos / 1_000_000)
            + " ms";
    if (advances == 0) {
      return LivenessVerdict.notLive(CounterIssue.FROZEN, "never advanced: " + facts);
    }
    for (int start = 0; start + LivenessPolicy.GROUP <= intervals; start++) {
      int inGroup = 0;
      for (int i = start; i < start + LivenessPolicy.GROUP; i++) {
        if (advanced[i]) {
          inGroup++;
        }
      }
      if (inGroup < LivenessPolicy.MIN_ADVANCING_PER_GROUP) {
        return LivenessVerdict.notLive(
            CounterIssue.LUMPY,
            "only "
                + inGroup
                + " of intervals "
                + (start + 1)
                + ".."
                + (start + LivenessPolicy.GROUP)
                + " advanced: "
                + facts);
      }
    }
    if (advances < LivenessPolicy.MIN_ADVANCING_INTERVALS) {
      return LivenessVerdict.notLive(CounterIssue.TOO_FEW_ADVANCES, facts);
    }
    if (spanNanos < LivenessPolicy.MIN_SPAN.toNanos()) {
      return LivenessVerdict.notLive(CounterIssue.PROBE_TOO_SHORT, facts);
    }
    long period =
        updatePeriodNanos > 0 ? updatePeriodNanos : longestGapBetweenAdvances(timesNanos, totalsUj);
    String every = String.format(Locale.ROOT, "%.1f", period / 1e6);
    return LivenessVerdict.live(facts + ", updates at least every " + every + " ms", period);
  }

  /**
   * The longest time between two samples that each showed an advance (the first counts from t0).
   */
  private static long longestGapBetweenAdvances(long[] timesNanos, long[] totalsUj) {
    long longest = 0;
    long lastChange = timesNanos[0];
    for (int i = 1; i < timesNanos.length; i++) {
      if (totalsUj[i] > totalsUj[i - 1]) {
        longest = Math.max(longest, timesNanos[i] - lastChange);
        lastChange = timesNanos[i];
      }
    }
    return Math.max(1, longest);
  }
}
