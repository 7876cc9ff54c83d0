package org.meshjava.energy;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.meshjava.core.EnergyDomain;

/**
 * What a refused total tells the operator: a draw past the bound sustained over many reads, each
 * within it alone, says so ("over several reads") and gives the span it was judged over; a single
 * leap does not. Fake time, no sleeps.
 */
class OverDrawDetailTest {
  private static final EnergyDomain CPU0 = EnergyDomain.cpuPackage(0);

  private final FakeClock clock = new FakeClock();
  private final TimedCounter zone = TimedCounter.rapl(CPU0, clock);
  private CounterMeter meter;

  @AfterEach
  void closeMeter() {
    if (meter != null) {
      meter.close();
    }
  }

  private String detailAfter(Runnable draw) {
    meter = clock.watch(ProbedMeter.overPackageZero(zone, clock, r -> {}));
    MeterWindow w = meter.open(Set.of(CPU0));
    draw.run();
    w.close(1);
    CounterStatus s = meter.counters().getFirst();
    assertThat(s.issue()).contains(CounterIssue.COUNTER_RESET);
    return s.detail();
  }

  @Test
  void aSustainedOverDraw_saysItWasSeenOverSeveralReads() {
    // 1.5 kW on a 1 kW zone, 3 J a 2 ms read: each read within the bound alone.
    String detail =
        detailAfter(
            () -> {
              for (int i = 0; i < 500; i++) {
                zone.work(3_000_000L);
                clock.advanceMillis(2);
              }
            });
    assertThat(detail).contains("(over several reads)").contains("more than 1000 W can draw");
    assertThat(detail).doesNotContain(" in 0 ms").doesNotContain(" in 2 ms");
  }

  @Test
  void aSingleLeap_isNotSaidToBeOverSeveralReads() {
    String detail =
        detailAfter(
            () -> {
              clock.advanceMillis(50);
              zone.work(10_000_000_000L);
              clock.advanceMillis(5);
            });
    assertThat(detail).doesNotContain("several").contains("more than 1000 W can draw");
  }
}
