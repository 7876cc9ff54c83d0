package org.meshjava.energy;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.meshjava.core.Energy;
import org.meshjava.core.EnergyDomain;
import org.meshjava.core.Provenance;

/**
 * The fake clock runs a watched meter's watch as the meter's own thread would: a read every two
 * update periods while a window is open on a live counter, none otherwise, at the same fake moments
 * in every run; so the fake-time grading tests are held to the stall bound (SPEC.md 40 §4).
 */
class FakeClockWatchTest {
  private static final EnergyDomain GPU0 = EnergyDomain.gpu(0);

  private final FakeClock clock = new FakeClock();
  private final List<Runnable> scheduled = new ArrayList<>();

  /** A board drawing 300 W, refreshing its counter every 100 ms. */
  private final TimedCounter gpu = new TimedCounter(GPU0, clock, 100, 300_000, true);

  private CounterMeter probed() {
    CounterMeter meter = clock.watch(ProbedMeter.unprobed(clock, scheduled::add, gpu));
    meter.probeNow();
    assertThat(meter.liveDomains()).containsExactly(GPU0);
    clock.advanceMillis(50);
    return meter;
  }

  @Test
  void watch_readsEveryTwoPeriodsWhileAWindowIsOpen_andNotOtherwise() {
    try (CounterMeter meter = probed()) {
      AtomicInteger reads = new AtomicInteger();
      gpu.onRead(reads::incrementAndGet);
      clock.advanceMillis(1_000);
      assertThat(reads).as("no window, no reads").hasValue(0);

      MeterWindow w = meter.open(Set.of(GPU0));
      clock.advanceMillis(1_000); // reads at 200, 400, 600, 800 and 1000 ms
      assertThat(w.close(1).provenance()).isEqualTo(Provenance.HwShunt);
      assertThat(reads).as("the open's, five watch reads, the close's").hasValue(7);

      clock.advanceMillis(1_000); // the read due at 1200 ms finds no window and stops the watch
      assertThat(reads).hasValue(7);
    }
  }

  @Test
  void counterFrozenInsideAWindow_isDemotedByTheWatchAlone() {
    try (CounterMeter meter = probed()) {
      MeterWindow w = meter.open(Set.of(GPU0));
      clock.advanceMillis(200);
      gpu.freeze();
      clock.advanceMillis(1_300);
      assertThat(meter.counters().getFirst().issue()).contains(CounterIssue.STALLED);
      assertThat(w.close(1)).isEqualTo(Energy.estimated(1));
    }
  }
}
