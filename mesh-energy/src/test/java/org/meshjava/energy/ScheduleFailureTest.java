package org.meshjava.energy;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.meshjava.core.EnergyDomain;

/**
 * The meter's own thread refuses to schedule a read (it was rejected, or no native thread could be
 * made for it): the timed reads and the watch are scheduled again at the next open, and the open
 * that met the failure still returns its window. Before, the timed reads ended for the meter's
 * life, and a watch that failed to schedule stayed marked running (never started again) and threw
 * out of the serve's open with the window's shares left registered. Fake time; nothing scheduled
 * runs.
 */
class ScheduleFailureTest {
  private static final EnergyDomain CPU0 = ProbedMeter.CPU0;
  private static final long WRAP_GAP_NANOS = 60_000_000_000L;

  private final FakeClock clock = new FakeClock();
  private final TimedCounter counter = TimedCounter.rapl(CPU0, clock);

  /** The meter's own thread: records what is scheduled (never runs it), or fails while asked. */
  static final class RefusingThread extends ScheduledThreadPoolExecutor {
    final List<Long> delays = new CopyOnWriteArrayList<>();
    // What was handed over to run later, with its delay; also what failed, where queuedThenFailed.
    final List<Map.Entry<Long, Runnable>> queued = new CopyOnWriteArrayList<>();
    final AtomicInteger refusals = new AtomicInteger();
    volatile Error error;
    // Fails as a ScheduledThreadPoolExecutor whose thread cannot start does: the task is queued
    // first, and runs once a later schedule starts the thread.
    volatile boolean queuedThenFailed;

    RefusingThread() {
      super(1);
    }

    @Override
    public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
      if (refusals.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
        if (queuedThenFailed) {
          queued.add(Map.entry(unit.toNanos(delay), command));
        }
        if (error != null) {
          throw error;
        }
        throw new RejectedExecutionException("refused");
      }
      delays.add(unit.toNanos(delay));
      queued.add(Map.entry(unit.toNanos(delay), command));
      return super.schedule(() -> {}, 1, TimeUnit.DAYS);
    }
  }

  /** A counter that wraps, so the meter reads it on a timer (every 30 s). */
  static EnergyChannel wrapping(TimedCounter counter) {
    return ForwardingChannel.readEvery(counter, WRAP_GAP_NANOS);
  }

  private CounterMeter meter(RefusingThread thread) {
    return probedOnOwnThread(counter, clock, thread);
  }

  /**
   * A meter over {@code counter} read on a timer ({@link #wrapping}), its own thread being {@code
   * thread}, probed live.
   */
  static CounterMeter probedOnOwnThread(
      TimedCounter counter, FakeClock clock, ScheduledThreadPoolExecutor thread) {
    CounterMeter meter =
        new CounterMeter(
            List.of(wrapping(counter)),
            List.of(),
            LivenessPolicy.standard(),
            LivenessPolicy.nvml(),
            Duration.ofMinutes(10),
            Optional.empty(),
            clock,
            null,
            thread);
    meter.probeNow();
    assertThat(meter.liveDomains()).containsExactly(counter.domain());
    return meter;
  }

  /**
   * Opens a window on package 0; anything thrown out of the open fails the test. JUnit rethrows an
   * OutOfMemoryError as fatal, past the test, which ended the whole Surefire fork (every later test
   * class in it unrun) where the scheduling failure reached the open.
   */
  static MeterWindow openOrFail(CounterMeter meter) {
    try {
      return meter.open(Set.of(CPU0));
    } catch (RuntimeException | Error e) {
      throw new AssertionError("the open threw " + e, e);
    }
  }

  @Test
  void timedReadsRefusedAtTheStart_areScheduledAgainAtTheNextOpen() {
    RefusingThread thread = new RefusingThread();
    thread.refusals.set(1);
    try (CounterMeter meter = meter(thread)) {
      assertThat(thread.delays).as("the refused timed read").isEmpty();
      clock.advanceMillis(5);
      MeterWindow w = openOrFail(meter);
      assertThat(thread.delays).as("scheduled again").contains(WRAP_GAP_NANOS / 2);
      w.close(1);
    }
  }

  @Test
  void aWatchThatCouldNotBeScheduled_doesNotFailTheOpen_andStartsAtTheNextOne() {
    RefusingThread thread = new RefusingThread();
    try (CounterMeter meter = meter(thread)) {
      thread.delays.clear();
      thread.error = new OutOfMemoryError("unable to create native thread");
      thread.refusals.set(1);
      clock.advanceMillis(5);
      MeterWindow first = openOrFail(meter);
      assertThat(thread.delays).isEmpty();
      clock.advanceMillis(50);
      first.close(1);

      clock.advanceMillis(5);
      MeterWindow second = openOrFail(meter);
      assertThat(thread.delays).as("the watch, started again").hasSize(1);
      second.close(1);
    }
  }

  @Test
  void aTimedReadQueuedThoughItsSchedulingFailed_doesNotRunBesideTheChainStartedAgain() {
    RefusingThread thread = new RefusingThread();
    thread.error = new OutOfMemoryError("unable to create native thread");
    thread.queuedThenFailed = true;
    thread.refusals.set(1);
    try (CounterMeter meter = meter(thread)) {
      clock.advanceMillis(5);
      MeterWindow w = openOrFail(meter);
      clock.advanceMillis(50);
      w.close(1);
      assertThat(queued(thread, true))
          .as("the failed chain, queued, and the one started again")
          .hasSize(2);

      assertThat(runEachOnce(thread, true))
          .as("timed reads scheduled after each ran once")
          .hasSize(1);
    }
  }

  /**
   * Runs each of the timed reads (or the watch's reads) queued on {@code thread} once, as the
   * thread would, and returns those they queued in turn.
   */
  private static List<Runnable> runEachOnce(RefusingThread thread, boolean timedReads) {
    List<Runnable> due = queued(thread, timedReads);
    thread.queued.clear();
    due.forEach(Runnable::run);
    return queued(thread, timedReads);
  }

  /** What is queued on {@code thread}: the timed reads (every 30 s), or the watch's reads. */
  private static List<Runnable> queued(RefusingThread thread, boolean timedReads) {
    return thread.queued.stream()
        .filter(e -> (e.getKey() == WRAP_GAP_NANOS / 2) == timedReads)
        .map(Map.Entry::getValue)
        .toList();
  }

  // No native thread to be had lasts: every open meets the failure again, and one line says it.
  @Test
  void aSchedulingFailureThatLasts_isWarnedOnce_andAgainAfterAScheduleWorked() {
    RefusingThread thread = new RefusingThread();
    thread.error = new OutOfMemoryError("unable to create native thread");
    try (CounterMeter meter = meter(thread)) {
      thread.refusals.set(Integer.MAX_VALUE);
      String failing = CounterLogLevelsTest.logOf(() -> serveFiveTimes(meter));
      thread.refusals.set(0);
      serveFiveTimes(meter);
      List<Map.Entry<Long, Runnable>> scheduled = List.copyOf(thread.queued);
      thread.queued.clear();
      scheduled.forEach(e -> e.getValue().run()); // the watch, with no window open, stops
      thread.refusals.set(Integer.MAX_VALUE);
      String failingAgain = CounterLogLevelsTest.logOf(() -> serveFiveTimes(meter));

      assertThat(failing.lines().filter(l -> l.contains("scheduling its watch failed")))
          .as(failing)
          .singleElement()
          .asString()
          .contains("WARN");
      assertThat(failingAgain.lines().filter(l -> l.contains("scheduling its watch failed")))
          .as(failingAgain)
          .hasSize(1);
    }
  }

  private void serveFiveTimes(CounterMeter meter) {
    for (int i = 0; i < 5; i++) {
      clock.advanceMillis(5);
      MeterWindow w = openOrFail(meter);
      clock.advanceMillis(50);
      w.close(1);
    }
  }

  @Test
  void aWatchQueuedThoughItsSchedulingFailed_doesNotRunBesideTheWatchStartedAgain() {
    RefusingThread thread = new RefusingThread();
    try (CounterMeter meter = meter(thread)) {
      thread.error = new OutOfMemoryError("unable to create native thread");
      thread.queuedThenFailed = true;
      thread.refusals.set(1);
      clock.advanceMillis(5);
      MeterWindow first = openOrFail(meter);
      clock.advanceMillis(5);
      MeterWindow second = openOrFail(meter);
      assertThat(queued(thread, false))
          .as("the failed watch, queued, and the one started again")
          .hasSize(2);

      assertThat(runEachOnce(thread, false))
          .as("watch reads scheduled after each ran once")
          .hasSize(1);
      clock.advanceMillis(50);
      first.close(1);
      second.close(1);
    }
  }
}
