package org.meshjava.energy;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.meshjava.core.EnergyDomain;
import org.meshjava.core.Provenance;

/**
 * A counter whose refresh slowed to three or four times its probed period stays under the stall
 * rule's five, so it is live, and its widened period sets the ten-period rule; the watch must then
 * read it often enough that a close can prove it moved within the stall bound, at whatever phase of
 * its refreshes the window ends (SPEC.md 40 §4). Fake time; the clock runs the watch.
 */
class SlowedRefreshPhaseTest {
  private static final EnergyDomain GPU0 = EnergyDomain.gpu(0);

  private List<Provenance> windowsAtEveryPhase(long refreshMs) {
    FakeClock clock = new FakeClock();
    List<Runnable> scheduled = new ArrayList<>();
    TimedCounter gpu = new TimedCounter(GPU0, clock, 100, 60_000, true);
    List<Provenance> graded = new ArrayList<>();
    try (CounterMeter meter = clock.watch(ProbedMeter.unprobed(clock, scheduled::add, gpu))) {
      meter.probeNow();
      assertThat(meter.updatePeriodNanos(GPU0)).isEqualTo(100_000_000L);
      gpu.refreshEveryMillis(refreshMs);
      for (long phase = 0; phase < refreshMs; phase += 7) {
        clock.advanceMillis(1_000 + 7); // a window's tail is past; the next starts 7 ms later
        MeterWindow w = meter.open(Set.of(GPU0));
        clock.advanceMillis(5_000 + phase % 190); // over ten of the slowed refreshes
        graded.add(w.close(1).provenance());
      }
      assertThat(meter.liveDomains()).as("never stalled").containsExactly(GPU0);
      assertThat(meter.updatePeriodNanos(GPU0)).as("widened").isGreaterThan(100_000_000L);
    }
    return graded;
  }

  @Test
  void refreshSlowedToThreeTimesTheProbedPeriod_isAReadingAtEveryPhase() {
    assertThat(windowsAtEveryPhase(300)).containsOnly(Provenance.HwShunt);
  }

  @Test
  void refreshSlowedToFourTimesTheProbedPeriod_isAReadingAtEveryPhase() {
    assertThat(windowsAtEveryPhase(400)).containsOnly(Provenance.HwShunt);
  }

  @Test
  void refreshSlowedToFourAndAHalfTimesTheProbedPeriod_isAReadingAtEveryPhase() {
    assertThat(windowsAtEveryPhase(450)).containsOnly(Provenance.HwShunt);
  }
}
