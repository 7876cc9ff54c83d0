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
 * A counter publishes the energy drawn up to its last refresh, so the end of a serve is in the
 * counter only up to one update period after its window closed. A window opened on the same counter
 * before then holds the rest of the previous serve's energy: it is two serves' energy, not a
 * reading of one (SPEC.md 40 §3), and is graded so; once a period has passed the counter has
 * published it and the next window is a reading again. Fake time, no sleeps.
 */
class BackToBackWindowTest {
  private static final EnergyDomain GPU0 = EnergyDomain.gpu(0);
  private static final EnergyDomain CPU0 = EnergyDomain.cpuPackage(0);

  /** The last 100 ms of a serve at 700 W, drawn but not yet published when its window closes. */
  private static final long TAIL_UJ = 70_000_000;

  private final FakeClock clock = new FakeClock();
  private final List<Runnable> scheduled = new ArrayList<>();

  /** A board at 60 W idle refreshing its counter every 100 ms. */
  private final TimedCounter gpu = new TimedCounter(GPU0, clock, 100, 60_000, true);

  private CounterMeter meter;

  @AfterEach
  void closeMeter() {
    if (meter != null) {
      meter.close();
    }
  }

  /** A probed meter over the board, half a refresh past the counter's last one. */
  private CounterMeter probedGpuMeter() {
    meter = clock.watch(ProbedMeter.unprobed(clock, scheduled::add, gpu));
    meter.probeNow();
    assertThat(meter.liveDomains()).containsExactly(GPU0);
    assertThat(meter.updatePeriodNanos(GPU0)).isEqualTo(100_000_000L);
    clock.advanceMillis(50);
    return meter;
  }

  /** Serves one window of 1.1 s whose last 100 ms drew {@link #TAIL_UJ} more than idle. */
  private Energy serveEndingInATail(CounterMeter m) {
    MeterWindow w = m.open(Set.of(GPU0));
    clock.advanceMillis(1_100);
    gpu.work(TAIL_UJ);
    return w.close(1);
  }

  @Test
  void windowOpenedAsAnotherCloses_holdsItsTail_soIsModelBasedWithTheWholeDelta() {
    CounterMeter m = probedGpuMeter();
    assertThat(serveEndingInATail(m).provenance()).isEqualTo(Provenance.HwShunt);

    MeterWindow next = m.open(Set.of(GPU0));
    clock.advanceMillis(1_100);
    Energy e = next.close(1);

    // 1.1 s at 60 W is 66 J; the previous serve's unpublished 70 J lands here too.
    assertThat(e.provenance()).isEqualTo(Provenance.ModelBased);
    assertThat(e.measuredUj()).isEmpty();
    assertThat(e.estimatedUj()).isGreaterThan(66_000_000L + TAIL_UJ - 6_000_000L);
  }

  @Test
  void windowOpenedAPeriodAfterAnotherCloses_isAReadingWithoutItsTail() {
    CounterMeter m = probedGpuMeter();
    serveEndingInATail(m);
    clock.advanceMillis(100); // one update period: the counter has published the tail

    MeterWindow next = m.open(Set.of(GPU0));
    clock.advanceMillis(1_100);
    Energy e = next.close(1);

    assertThat(e.provenance()).isEqualTo(Provenance.HwShunt);
    assertThat(e.measuredUj().orElseThrow()).isLessThanOrEqualTo(72_000_000L);
  }

  @Test
  void windowOpenedAsAnotherIsAbandoned_holdsItsTailToo() {
    CounterMeter m = probedGpuMeter();
    MeterWindow failed = m.open(Set.of(GPU0));
    clock.advanceMillis(1_100);
    gpu.work(TAIL_UJ);
    failed.abandon();

    MeterWindow next = m.open(Set.of(GPU0));
    clock.advanceMillis(1_100);
    assertThat(next.close(1).provenance()).isEqualTo(Provenance.ModelBased);
  }

  @Test
  void millisecondCounter_backToBack_isModelBased_butAPeriodLaterIsAReading() {
    TimedCounter cpu = TimedCounter.rapl(CPU0, clock);
    meter = clock.watch(ProbedMeter.unprobed(clock, scheduled::add, cpu));
    meter.probeNow();
    long period = meter.updatePeriodNanos(CPU0);
    assertThat(period).isPositive();

    MeterWindow first = meter.open(Set.of(CPU0));
    clock.advanceMillis(50);
    assertThat(first.close(1).provenance()).isEqualTo(Provenance.HwShunt);
    MeterWindow second = meter.open(Set.of(CPU0));
    clock.advanceMillis(50);
    assertThat(second.close(1).provenance()).isEqualTo(Provenance.ModelBased);

    clock.burnUntil(clock.nanoTime() + period);
    MeterWindow third = meter.open(Set.of(CPU0));
    clock.advanceMillis(50);
    assertThat(third.close(1).provenance()).isEqualTo(Provenance.HwShunt);
  }
}
