package org.meshjava.energy;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Samples several counters together for one probe and judges each by {@link LivenessRule}. All
 * counters share one probe so discovery costs one probe duration (the longest of their policies)
 * however many counters there are; each counter is sampled on its own policy's grid. A counter
 * whose read fails mid-probe is judged {@link CounterIssue#READ_FAILED}.
 *
 * <p>Between samples each counter is also polled at its policy's poll interval. Polls take no part
 * in the liveness rule; they time the counter's updates, so the verdict of a live counter carries
 * its update period: the longest gap seen between two changes of its value. That is an upper bound
 * on the true period (to the poll resolution), which is the safe side for the rules built on it
 * (shortest gradable window, stall detection).
 *
 * <p>A probe whose thread is interrupted stops at its next read and judges every counter not live
 * ({@link CounterIssue#PROBING}), so a meter that closes does not wait out a whole probe. One whose
 * clock steps back starts over, and after {@link #STEPPED_BACK_ATTEMPTS} such starts judges every
 * counter not live ({@link CounterIssue#PROBING}).
 */
final class LivenessProbe {

  /** A counter under probe. */
  interface Target {
    String name();

    /** The cadence this counter is probed at. */
    LivenessPolicy policy();

    /**
     * Reads the counter and returns the value it is judged on: its total, or for a channel summing
     * several counters a mark that moves only once each of them has ({@link
     * EnergyChannel#livenessMark}). Only its changes count, never its size.
     */
    long readLivenessMark() throws CounterException;
  }

  /** How many times a probe starts over after a step back of the clock before it gives up. */
  static final int STEPPED_BACK_ATTEMPTS = 2;

  private final ProbeClock clock;

  LivenessProbe(ProbeClock clock) {
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  /** Probes {@code targets}, returning one verdict per target in the same order. */
  List<LivenessVerdict> probe(List<? extends Target> targets) {
    for (int attempt = 1; attempt <= STEPPED_BACK_ATTEMPTS; attempt++) {
      List<LivenessVerdict> verdicts = probeOnce(targets);
      if (verdicts != null) {
        return verdicts;
      }
    }
    List<LivenessVerdict> notLive = new ArrayList<>();
    for (int t = 0; t < targets.size(); t++) {
      notLive.add(
          LivenessVerdict.notLive(CounterIssue.PROBING, "the clock stepped back during the probe"));
    }
    return notLive;
  }

  /**
   * One probe of {@code targets}; null when the clock read earlier than it did before (a step
   * back): every time the tracks keep is then ahead of it, and waiting for the next sample would
   * burn a core for as long as the step (an hour's step, an hour's burn, every window of the
   * process disturbed meanwhile), so the probe starts over instead.
   */
  private @Nullable List<LivenessVerdict> probeOnce(List<? extends Target> targets) {
    int n = targets.size();
    Track[] tracks = new Track[n];
    long start = clock.nanoTime();
    for (int t = 0; t < n; t++) {
      tracks[t] = new Track(targets.get(t), start);
      tracks[t].read(start);
    }
    long lastNow = start;
    boolean interrupted = false;
    while (true) {
      if (clock.nanoTime() < lastNow) {
        return null;
      }
      long next = Long.MAX_VALUE;
      for (Track track : tracks) {
        if (!track.done()) {
          next = Math.min(next, track.nextReadNanos());
        }
      }
      if (next == Long.MAX_VALUE) {
        break;
      }
      if (Thread.currentThread().isInterrupted()) {
        interrupted = true;
        break;
      }
      clock.burnUntil(next);
      long now = clock.nanoTime();
      if (now < lastNow) {
        return null;
      }
      lastNow = now;
      for (Track track : tracks) {
        if (!track.done() && now >= track.nextReadNanos()) {
          track.read(now);
        }
      }
    }
    List<LivenessVerdict> verdicts = new ArrayList<>(n);
    for (Track track : tracks) {
      verdicts.add(
          interrupted
              ? LivenessVerdict.notLive(CounterIssue.PROBING, "probe interrupted")
              : track.verdict());
    }
    return verdicts;
  }

  /** One counter's samples and update timing during a probe. */
  private static final class Track {
    private final Target target;
    private final long start;
    private final long intervalNanos;
    private final long pollNanos;
    private final int intervals;
    private final long[] times;
    private final long[] totals;
    private int samples;
    private long lastReadNanos;
    private boolean haveValue;
    private long lastValue;
    private long lastChangeNanos;
    private long longestGapNanos;
    private int changes;
    private @Nullable CounterException failure;

    Track(Target target, long start) {
      this.target = target;
      this.start = start;
      LivenessPolicy policy = target.policy();
      this.intervalNanos = policy.sampleInterval().toNanos();
      this.pollNanos = policy.pollInterval().toNanos();
      this.intervals = policy.intervals();
      this.times = new long[intervals + 1];
      this.totals = new long[intervals + 1];
    }

    boolean done() {
      return failure != null || samples > intervals;
    }

    long nextSampleNanos() {
      return start + samples * intervalNanos;
    }

    long nextReadNanos() {
      return Math.min(nextSampleNanos(), lastReadNanos + pollNanos);
    }

    void read(long now) {
      long total;
      try {
        total = target.readLivenessMark();
      } catch (CounterException e) {
        failure = e;
        return;
      }
      lastReadNanos = now;
      if (haveValue && total > lastValue) {
        // A gap is measured from the previous change, if there was one. Not from a sentinel time:
        // a monotonic clock has no origin, and its readings may be negative.
        if (changes > 0) {
          longestGapNanos = Math.max(longestGapNanos, now - lastChangeNanos);
        }
        lastChangeNanos = now;
        changes++;
      }
      haveValue = true;
      lastValue = total;
      if (now >= nextSampleNanos()) {
        times[samples] = now;
        totals[samples] = total;
        samples++;
      }
    }

    LivenessVerdict verdict() {
      if (failure != null) {
        return LivenessVerdict.notLive(
            failure.issue() == CounterIssue.COUNTER_RESET
                ? CounterIssue.COUNTER_RESET
                : CounterIssue.READ_FAILED,
            "read failed during probe: " + failure.getMessage());
      }
      // With two or more changes the polls timed the updates; otherwise fall back to the samples.
      long period = changes >= 2 ? longestGapNanos : 0;
      return LivenessRule.judge(
          Arrays.copyOf(times, samples), Arrays.copyOf(totals, samples), period);
    }
  }
}
