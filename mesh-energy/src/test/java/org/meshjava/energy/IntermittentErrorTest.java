package org.meshjava.energy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.meshjava.core.Energy;
import org.meshjava.core.EnergyDomain;
import org.meshjava.core.Provenance;

/**
 * A counter whose reads throw an {@link Error} now and then, never three in a row, is set aside all
 * the same once {@link DomainLedger#ERRORS_BEFORE_SET_ASIDE} of its reads have thrown since a probe
 * last proved it live; and an Error met by a probe's read fails that counter's probe alone, not the
 * probe of every counter taken with it. Fake time, no sleeps.
 */
class IntermittentErrorTest {
  private final FakeClock clock = new FakeClock();
  private final TimedCounter cpu = TimedCounter.rapl(ProbedMeter.CPU0, clock);
  private final TimedCounter other = TimedCounter.rapl(EnergyDomain.cpuPackage(1), clock);
  private final List<Runnable> reprobes = new ArrayList<>();

  /** Serves 50 ms on package 0; returns what the serve saw thrown, or its figure. */
  private Object serve(CounterMeter meter) {
    clock.advanceMillis(5);
    Throwable thrown = catchThrowable(() -> serveOnce(meter));
    return thrown != null ? thrown : lastFigure;
  }

  private Energy lastFigure;

  private void serveOnce(CounterMeter meter) {
    MeterWindow w = meter.open(Set.of(ProbedMeter.CPU0));
    clock.advanceMillis(50);
    lastFigure = w.close(1);
  }

  /** From now on every other read of {@code counter} throws an AssertionError. */
  private static void everyOtherReadThrows(TimedCounter counter) {
    AtomicInteger reads = new AtomicInteger();
    counter.onRead(
        () -> {
          if (reads.incrementAndGet() % 2 == 0) {
            throw new AssertionError("driver fault now and then");
          }
        });
  }

  @Test
  void aCounterThrowingAnErrorAtEveryOtherRead_isSetAsideAfterThree() {
    try (CounterMeter meter = ProbedMeter.overPackageZero(cpu, clock, reprobes::add)) {
      everyOtherReadThrows(cpu);
      int thrown = 0;
      List<Object> seen = new ArrayList<>();
      for (int i = 0; i < 10; i++) {
        Object o = serve(meter);
        seen.add(o);
        if (o instanceof Error) {
          thrown++;
        }
      }
      assertThat(thrown)
          .as("serves that saw the counter's Error thrown: %s", seen)
          .isEqualTo(DomainLedger.ERRORS_BEFORE_SET_ASIDE - 1);
      assertThat(seen.subList(5, 10))
          .as("serves after the counter was set aside")
          .allSatisfy(
              o ->
                  assertThat(o)
                      .isInstanceOfSatisfying(
                          Energy.class,
                          e -> assertThat(e.provenance()).isEqualTo(Provenance.Estimator)));
      assertThat(meter.liveDomains()).isEmpty();
      assertThat(meter.counters().getFirst().detail())
          .contains("driver fault now and then")
          .contains("read again only by its re-probe");

      // The re-probe that proves it live starts the count over: one Error more is thrown on as a
      // fault of the serve that met it, and the counter is kept.
      cpu.onRead(() -> {});
      assertThat(reprobes).hasSize(1);
      reprobes.removeFirst().run();
      assertThat(meter.liveDomains()).containsExactly(ProbedMeter.CPU0);
      everyOtherReadThrows(cpu);
      assertThat(serve(meter)).isInstanceOf(AssertionError.class);
      assertThat(meter.liveDomains()).containsExactly(ProbedMeter.CPU0);
    }
  }

  @Test
  void anErrorOutOfOneCountersProbeRead_failsOnlyThatCountersProbe() {
    try (CounterMeter meter = ProbedMeter.unprobed(clock, reprobes::add, cpu, other)) {
      AtomicInteger reads = new AtomicInteger();
      cpu.onRead(
          () -> {
            if (reads.incrementAndGet() == 3) {
              throw new InternalError("fault in an unsafe memory access");
            }
          });
      Throwable thrown = catchThrowable(meter::probeNow);
      assertThat(thrown).as("thrown out of the probe").isNull();
      assertThat(meter.liveDomains()).containsExactly(EnergyDomain.cpuPackage(1));
      CounterStatus cpuStatus = meter.counters().getFirst();
      assertThat(cpuStatus.issue()).contains(CounterIssue.READ_FAILED);
      assertThat(cpuStatus.detail())
          .contains("fault in an unsafe memory access")
          .contains("probe failed");
    }
  }
}
