package org.meshjava.energy;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.meshjava.core.Energy;
import org.meshjava.core.Provenance;

/**
 * A counter that a probe's burn moves but that stalls again soon after (SPEC.md 40 §2): the first
 * demotion is re-probed at once, each further one in a run waits longer, 10 s doubling up to the
 * periodic re-probe interval, and the domain stays demoted meanwhile. Fake time throughout: the
 * probe and the waits burn nothing, and nothing is timed.
 */
class ReprobeBackoffTest {
  private static final long REPROBE_MS = 600_000; // ProbedMeter's 10 minutes

  private final FakeClock clock = new FakeClock();
  private final List<Runnable> scheduled = new ArrayList<>();
  private final TimedCounter cpu = TimedCounter.rapl(ProbedMeter.CPU0, clock);
  private final CounterMeter meter =
      clock.watch(ProbedMeter.overPackageZero(cpu, clock, scheduled::add));

  /** Freezes the counter until a window's read finds it stalled, which demotes it. */
  private void stall() {
    cpu.freeze();
    meter.pollCounters(); // takes in the refresh the counter made as the probe settled
    clock.advanceMillis(50); // 50 update periods of 1 ms: past the stall rule's five
    meter.open(Set.of(ProbedMeter.CPU0)).abandon();
    assertThat(meter.counters().getFirst().issue()).contains(CounterIssue.STALLED);
  }

  /** Runs the re-probe that was scheduled, with the counter moving again: it proves live. */
  private void reprobeFindsItLive() {
    assertThat(scheduled).hasSize(1);
    cpu.thaw();
    scheduled.removeFirst().run();
    assertThat(meter.liveDomains()).containsExactly(ProbedMeter.CPU0);
  }

  /** Opens and closes a window after {@code millis}, returning its figure for an estimate of 9. */
  private Energy windowAfter(long millis) {
    clock.advanceMillis(millis);
    MeterWindow w = meter.open(Set.of(ProbedMeter.CPU0));
    clock.advanceMillis(20);
    return w.close(9);
  }

  @Test
  void aCounterStallingAgainAfterEachReprobe_waitsTwiceAsLongEachTime_untilThePeriod() {
    stall();
    reprobeFindsItLive(); // the first demotion is re-probed at once, as before

    long[] waitsMs = {10_000, 20_000, 40_000, 80_000, 160_000, 320_000};
    for (long waitMs : waitsMs) {
      stall();
      assertThat(scheduled).as("no re-probe straight after demotion %s", waitMs).isEmpty();
      assertThat(meter.counters().getFirst().detail())
          .contains("re-probe in " + waitMs / 1_000 + " s");

      // Windows meanwhile (each 20 ms long) leave the domain demoted and schedule nothing.
      assertThat(windowAfter(waitMs - 21)).isEqualTo(Energy.estimated(9));
      assertThat(scheduled).as("not yet, %s ms after the demotion", waitMs - 1).isEmpty();
      assertThat(meter.liveDomains()).isEmpty();

      clock.advanceMillis(1);
      meter.open(Set.of(ProbedMeter.CPU0)).abandon();
      reprobeFindsItLive();
    }

    // 640 s would pass the periodic interval: the wait stops at it. The last probe ended 50 ms
    // before this demotion, so the periodic re-probe falls due 50 ms before the full 600 s.
    stall();
    assertThat(windowAfter(REPROBE_MS - 100)).isEqualTo(Energy.estimated(9));
    assertThat(scheduled).isEmpty();
    clock.advanceMillis(80);
    meter.open(Set.of(ProbedMeter.CPU0)).abandon();
    reprobeFindsItLive();
  }

  @Test
  void aDemotionAWholePeriodAfterTheLast_startsANewRun_andIsReprobedAtOnce() {
    stall();
    reprobeFindsItLive();
    stall(); // the second of a run: waits 10 s
    clock.advanceMillis(10_000);
    meter.open(Set.of(ProbedMeter.CPU0)).abandon();
    reprobeFindsItLive();

    // Live for the rest of the period: the next demotion is the first of a new run. The periodic
    // re-probe is not due yet (the last probe ended 10 s after the last demotion).
    assertThat(windowAfter(REPROBE_MS - 10_000).provenance()).isEqualTo(Provenance.HwShunt);
    stall();

    assertThat(scheduled).as("re-probed at once").hasSize(1);
    assertThat(meter.counters().getFirst().detail()).doesNotContain("re-probe in");
  }
}
