package org.meshjava.energy;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Set;
import org.junit.jupiter.api.Test;
import org.meshjava.core.Provenance;

/**
 * A window never closed (a caller that lost its handle, an engine that never returned) overlapped
 * every later window on its counter, in every meter of the process, for the life of the process.
 * Past {@link DomainLedger#STALE_WINDOW_NANOS} it is taken out of the books: later serves alone are
 * readings again, and its own figure, if it ever closes, is the estimator's. Fake time, no sleeps.
 */
class StaleWindowTest {
  private static final long MINUTE_MS = 60_000;

  private final FakeClock clock = new FakeClock();
  private final TimedCounter counter = TimedCounter.rapl(ProbedMeter.CPU0, clock);

  @Test
  void aWindowNeverClosed_overlapsLaterServesForAnHourOnly() {
    try (CounterMeter meter = ProbedMeter.overPackageZero(counter, clock, r -> {})) {
      clock.advanceMillis(5);
      MeterWindow lost = meter.open(Set.of(ProbedMeter.CPU0));
      clock.advanceMillis(59 * MINUTE_MS);
      assertThat(ProbedMeter.serveAlone(meter, clock))
          .as("a serve beside a window open 59 min")
          .isEqualTo(Provenance.ModelBased);
      clock.advanceMillis(MINUTE_MS);
      assertThat(ProbedMeter.serveAlone(meter, clock))
          .as("a serve alone once the window left open is an hour old")
          .isEqualTo(Provenance.HwShunt);
      assertThat(OpenWindows.on(counter.hardware())).isZero();
      assertThat(lost.close(1).provenance())
          .as("the stale window's own figure")
          .isEqualTo(Provenance.Estimator);
      assertThat(OpenWindows.on(counter.hardware())).isZero();
      assertThat(ProbedMeter.serveAlone(meter, clock)).isEqualTo(Provenance.HwShunt);
    }
  }

  @Test
  void aStaleWindowOfAnotherMeter_isTakenOutAtItsMetersNextRead() {
    TimedCounter other = TimedCounter.rapl(ProbedMeter.CPU0, clock).sameHardwareAs(counter);
    try (CounterMeter a = ProbedMeter.overPackageZero(counter, clock, r -> {});
        CounterMeter b = ProbedMeter.overPackageZero(other, clock, r -> {})) {
      clock.advanceMillis(5);
      MeterWindow lost = a.open(Set.of(ProbedMeter.CPU0));
      clock.advanceMillis(61 * MINUTE_MS);
      // The first serve in the other meter finds it still counted; its open reads the counter in
      // the stale window's meter, which takes it out.
      assertThat(ProbedMeter.serveAlone(b, clock)).isEqualTo(Provenance.ModelBased);
      assertThat(ProbedMeter.serveAlone(b, clock)).isEqualTo(Provenance.HwShunt);
      assertThat(ProbedMeter.serveAlone(a, clock)).isEqualTo(Provenance.HwShunt);
      lost.abandon();
      assertThat(OpenWindows.on(counter.hardware())).isZero();
    }
  }
}
