package org.meshjava.energy;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.meshjava.core.Provenance;

/**
 * Every read of a counter ages the windows open on it, in every meter of the process, so that a
 * lost one is counted out after an hour ({@link OpenWindows}). That must cost the same however many
 * windows are open: hundreds of serves at once made each open and close look at every one of them.
 * Fake time, no sleeps.
 */
class OpenWindowsAtScaleTest {
  private static final long MINUTE_MS = 60_000;

  private final FakeClock clock = new FakeClock();
  private final TimedCounter counter = TimedCounter.rapl(ProbedMeter.CPU0, clock);

  /** A clock over {@link #clock} that counts its readings. */
  private final class CountingClock implements ProbeClock {
    final AtomicLong reads = new AtomicLong();

    @Override
    public long nanoTime() {
      reads.incrementAndGet();
      return clock.nanoTime();
    }

    @Override
    public void burnUntil(long deadlineNanos) {
      clock.burnUntil(deadlineNanos);
    }

    @Override
    public void idleUntil(long deadlineNanos) {
      clock.idleUntil(deadlineNanos);
    }
  }

  /**
   * Regression: a read in one meter read the clock of each window open in another meter, one by
   * one, each under the process-wide lock, so its cost grew with the windows open.
   */
  @Test
  void aRead_agesAnotherMetersWindows_byOneReadingOfTheirClock_howeverManyAreOpen() {
    CountingClock othersClock = new CountingClock();
    TimedCounter other = TimedCounter.rapl(ProbedMeter.CPU0, clock).sameHardwareAs(counter);
    try (CounterMeter reading = ProbedMeter.overPackageZero(counter, clock, r -> {});
        CounterMeter holding = ProbedMeter.overPackageZero(other, othersClock, r -> {})) {
      List<MeterWindow> open = new ArrayList<>();
      for (int i = 0; i < 200; i++) {
        open.add(holding.open(Set.of(ProbedMeter.CPU0)));
      }
      clock.advanceMillis(5);
      long before = othersClock.reads.get();

      reading.pollCounters();

      assertThat(othersClock.reads.get() - before).isEqualTo(1);
      assertThat(OpenWindows.on(counter.hardware())).isEqualTo(200);
      open.forEach(MeterWindow::abandon);
      assertThat(OpenWindows.on(counter.hardware())).isZero();
    }
  }

  /** Windows are aged oldest first: each is counted out at its own hour, not at another's. */
  @Test
  void windowsOpenedApart_areEachCountedOutAtTheirOwnHour() {
    try (CounterMeter meter = ProbedMeter.overPackageZero(counter, clock, r -> {})) {
      clock.advanceMillis(5);
      MeterWindow first = meter.open(Set.of(ProbedMeter.CPU0));
      clock.advanceMillis(30 * MINUTE_MS);
      MeterWindow second = meter.open(Set.of(ProbedMeter.CPU0));
      MeterWindow closedEarly = meter.open(Set.of(ProbedMeter.CPU0));
      clock.advanceMillis(50);
      assertThat(closedEarly.close(1).provenance()).isEqualTo(Provenance.ModelBased);
      clock.advanceMillis(31 * MINUTE_MS);

      meter.pollCounters();

      assertThat(OpenWindows.on(counter.hardware())).as("the second, 31 min old").isEqualTo(1);
      clock.advanceMillis(30 * MINUTE_MS);
      meter.pollCounters();
      assertThat(OpenWindows.on(counter.hardware())).isZero();
      assertThat(first.close(1).provenance()).isEqualTo(Provenance.Estimator);
      assertThat(second.close(1).provenance()).isEqualTo(Provenance.Estimator);
      assertThat(ProbedMeter.serveAlone(meter, clock)).isEqualTo(Provenance.HwShunt);
    }
  }
}
