package org.meshjava.energy;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.meshjava.core.Energy;
import org.meshjava.core.EnergyDomain;
import org.meshjava.core.Provenance;

/**
 * A counter that misses a few refreshes and then publishes the energy of the whole time since is
 * late, not reset: its increment is bounded by what the domain can draw since the previous value
 * could have been published, not since the read that happened to return it (SPEC.md 40 §1). Fake
 * time, no sleeps.
 */
class LateCounterTest {
  private static final EnergyDomain GPU0 = EnergyDomain.gpu(0);

  private final FakeClock clock = new FakeClock();
  private final List<Runnable> scheduled = new ArrayList<>();

  /** A board drawing 800 W, refreshing its counter every 100 ms. */
  private final TimedCounter gpu = new TimedCounter(GPU0, clock, 100, 800_000, true);

  private CounterMeter meter;

  @AfterEach
  void closeMeter() {
    if (meter != null) {
      meter.close();
    }
  }

  @Test
  void valueThatCatchesUpAfterMissedRefreshes_isEnergyNotAReset() {
    meter = clock.watch(ProbedMeter.unprobed(clock, scheduled::add, gpu));
    meter.probeNow();
    assertThat(meter.liveDomains()).containsExactly(GPU0);
    clock.advanceMillis(50);
    long drawnAtOpen = gpu.drawnUj();

    MeterWindow w = meter.open(Set.of(GPU0));
    gpu.freeze(); // three refreshes missed: under the stall rule's five periods
    clock.advanceMillis(390);
    meter.pollCounters(); // still the value from before the window
    gpu.thaw();
    clock.advanceMillis(60); // the next refresh publishes 450 ms at 800 W: 360 J in one step
    meter.pollCounters();
    assertThat(meter.counters().getFirst().issue()).isEmpty();

    clock.advanceMillis(1_000);
    Energy e = w.close(1);
    long drawn = gpu.drawnUj() - drawnAtOpen;
    assertThat(e.provenance()).isEqualTo(Provenance.HwShunt);
    // Within one 100 ms refresh (80 J) of what the board drew over the window.
    assertThat(e.measuredUj().orElseThrow()).isBetween(drawn - 80_000_000L, drawn + 80_000_000L);
  }

  @Test
  void leapBeyondTheBoundSinceTheValueCouldHaveBeenPublished_isStillAReset() {
    meter = clock.watch(ProbedMeter.unprobed(clock, scheduled::add, gpu));
    meter.probeNow();
    clock.advanceMillis(50);
    MeterWindow w = meter.open(Set.of(GPU0));
    clock.advanceMillis(400);
    // 10 kJ in well under a second is more than 2 kW can draw since any value read so far.
    gpu.work(10_000_000_000L);
    clock.advanceMillis(100);
    assertThat(w.close(1)).isEqualTo(Energy.estimated(1));
    assertThat(meter.counters().getFirst().issue()).contains(CounterIssue.COUNTER_RESET);
  }
}
