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

  /**
   * Serves alone in {@code meter} from 59 minutes after the window described as {@code lost} was
   * opened (or its age brought back to): a serve then overlaps it, one a minute later is a reading,
   * and nothing is counted open on {@code hardware} any longer. The check every lost window of this
   * family ends with.
   */
  static void overlapsUntilAnHourOld(
      CounterMeter meter, FakeClock clock, Object hardware, String lost) {
    clock.advanceMillis(59 * MINUTE_MS);
    assertThat(ProbedMeter.serveAlone(meter, clock))
        .as("a serve beside %s, 59 min on", lost)
        .isEqualTo(Provenance.ModelBased);
    clock.advanceMillis(MINUTE_MS);
    assertThat(ProbedMeter.serveAlone(meter, clock))
        .as("a serve alone, %s an hour old", lost)
        .isEqualTo(Provenance.HwShunt);
    assertThat(OpenWindows.on(hardware)).as("windows counted open").isZero();
  }

  /**
   * Closes {@code lost}, taken out of the books already: its own figure is the estimator's, it
   * leaves nothing counted, and the next serve in {@code meter} alone is a reading.
   */
  private void closesAsTheEstimators(MeterWindow lost, CounterMeter meter, String what) {
    assertThat(lost.close(1).provenance())
        .as("%s's own figure", what)
        .isEqualTo(Provenance.Estimator);
    assertThat(OpenWindows.on(counter.hardware())).isZero();
    assertThat(ProbedMeter.serveAlone(meter, clock)).isEqualTo(Provenance.HwShunt);
  }

  @Test
  void aWindowNeverClosed_overlapsLaterServesForAnHourOnly() {
    try (CounterMeter meter = ProbedMeter.overPackageZero(counter, clock, r -> {})) {
      clock.advanceMillis(5);
      MeterWindow lost = meter.open(Set.of(ProbedMeter.CPU0));
      overlapsUntilAnHourOld(meter, clock, counter.hardware(), "the window left open");
      closesAsTheEstimators(lost, meter, "the stale window");
    }
  }

  /**
   * A window whose close is the first read of its counter since it went an hour old (no serve,
   * watch or timer read in between) was taken out of the books by that very read, yet its close
   * went on to grade the counter's delta over the hour a reading alone.
   */
  @Test
  void aWindowClosedAnHourOn_withNoReadBetween_isTheEstimators() {
    try (CounterMeter meter = ProbedMeter.overPackageZero(counter, clock, r -> {})) {
      clock.advanceMillis(5);
      MeterWindow lost = meter.open(Set.of(ProbedMeter.CPU0));
      clock.advanceMillis(61 * MINUTE_MS);
      counter.work(1_000);
      clock.advanceMillis(5);
      closesAsTheEstimators(lost, meter, "the hour-old window");
    }
  }

  /**
   * Pinned, before session 35, that the other meter's first serve still found the stale window
   * counted (ModelBased) until the read in the stale window's own meter took it out; any meter's
   * read of the counter takes it out now, so that serve is a reading.
   */
  @Test
  void aStaleWindowOfAnotherMeter_isTakenOutAtTheNextReadOfEitherMeter() {
    TimedCounter other = TimedCounter.rapl(ProbedMeter.CPU0, clock).sameHardwareAs(counter);
    try (CounterMeter a = ProbedMeter.overPackageZero(counter, clock, r -> {});
        CounterMeter b = ProbedMeter.overPackageZero(other, clock, r -> {})) {
      clock.advanceMillis(5);
      MeterWindow lost = a.open(Set.of(ProbedMeter.CPU0));
      clock.advanceMillis(61 * MINUTE_MS);
      assertThat(ProbedMeter.serveAlone(b, clock)).isEqualTo(Provenance.HwShunt);
      assertThat(ProbedMeter.serveAlone(b, clock)).isEqualTo(Provenance.HwShunt);
      assertThat(ProbedMeter.serveAlone(a, clock)).isEqualTo(Provenance.HwShunt);
      lost.abandon();
      assertThat(OpenWindows.on(counter.hardware())).isZero();
    }
  }

  @Test
  void aWindowLostInAMeterClosedSince_overlapsLaterServesForAnHourOnly() {
    TimedCounter other = TimedCounter.rapl(ProbedMeter.CPU0, clock).sameHardwareAs(counter);
    try (CounterMeter b = ProbedMeter.overPackageZero(other, clock, r -> {})) {
      MeterWindow lost;
      try (CounterMeter a = ProbedMeter.overPackageZero(counter, clock, r -> {})) {
        clock.advanceMillis(5);
        lost = a.open(Set.of(ProbedMeter.CPU0));
      }
      overlapsUntilAnHourOld(b, clock, counter.hardware(), "the window lost in a closed meter");
      closesAsTheEstimators(lost, b, "the lost window");
    }
  }
}
