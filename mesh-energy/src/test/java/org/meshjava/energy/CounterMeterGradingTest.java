package org.meshjava.energy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.meshjava.core.Energy;
import org.meshjava.core.EnergyDomain;
import org.meshjava.core.Provenance;

/**
 * The grading rules of §3.3 on counters that behave in fake time as real ones do (refreshed every
 * update period, idle power always flowing), one rule per test.
 */
class CounterMeterGradingTest {
  private static final EnergyDomain CPU0 = EnergyDomain.cpuPackage(0);
  private static final EnergyDomain DRAM0 = EnergyDomain.dram(0);
  private static final EnergyDomain GPU0 = EnergyDomain.gpu(0);

  /** Long enough for a 1 ms counter to resolve (ten update periods and then some). */
  private static final long SERVE_MS = 50;

  private final FakeClock clock = new FakeClock();
  private final List<Runnable> scheduled = new ArrayList<>();

  /** A meter whose re-probes run only when the test says so. */
  private CounterMeter meter(EnergyChannel... channels) {
    return clock.watch(ProbedMeter.unprobed(clock, scheduled::add, channels));
  }

  private TimedCounter live(EnergyDomain d) {
    return TimedCounter.rapl(d, clock);
  }

  /** Lets {@code ms} of fake time pass, as a serve would. */
  private void serve(long ms) {
    clock.advanceMillis(ms);
  }

  @Test
  void close_whenAloneOnLiveCoveredDomains_isHwShuntWithTheCounterDelta() {
    TimedCounter cpu = live(CPU0);
    TimedCounter dram = live(DRAM0);
    CounterMeter meter = meter(cpu, dram);
    meter.probeNow();
    MeterWindow w = meter.open(Set.of(CPU0, DRAM0));
    long before = cpu.drawnUj() + dram.drawnUj();
    cpu.work(5_000);
    dram.work(700);
    serve(SERVE_MS);
    Energy e = w.close(1_234);
    assertThat(e.provenance()).isEqualTo(Provenance.HwShunt);
    assertThat(e.measuredUj()).hasValue(cpu.drawnUj() + dram.drawnUj() - before);
    assertThat(e.measuredUj().getAsLong()).isEqualTo(5_700 + 2 * SERVE_MS * 10);
    assertThat(e.estimatedUj()).isEqualTo(1_234);
  }

  @Test
  void close_whenCounterNeverProvedLive_isEstimator() {
    TimedCounter cpu = live(CPU0);
    cpu.freeze();
    CounterMeter meter = meter(cpu);
    assertThat(meter.probeNow().getFirst().issue()).contains(CounterIssue.FROZEN);
    MeterWindow w = meter.open(Set.of(CPU0));
    cpu.work(5_000);
    serve(SERVE_MS);
    assertThat(w.close(99)).isEqualTo(Energy.estimated(99));
  }

  @Test
  void close_beforeAnyProbe_isEstimator() {
    TimedCounter cpu = live(CPU0);
    CounterMeter meter = meter(cpu);
    MeterWindow w = meter.open(Set.of(CPU0));
    serve(SERVE_MS);
    assertThat(w.close(99).provenance()).isEqualTo(Provenance.Estimator);
  }

  @Test
  void close_whenCounterRefreshesInLumps_isEstimator() {
    // Refreshed every 60 ms: two of every three 20 ms sample intervals see nothing.
    TimedCounter cpu = new TimedCounter(CPU0, clock, 60, 10, false);
    CounterMeter meter = meter(cpu);
    assertThat(meter.probeNow().getFirst().issue()).contains(CounterIssue.LUMPY);
    MeterWindow w = meter.open(Set.of(CPU0));
    serve(SERVE_MS);
    assertThat(w.close(99).provenance()).isEqualTo(Provenance.Estimator);
  }

  @Test
  void close_whenGpuCounterLiveButCpuHasNone_isEstimator() {
    TimedCounter gpu = live(GPU0);
    CounterMeter meter = meter(gpu);
    meter.probeNow();
    MeterWindow w = meter.open(Set.of(CPU0, GPU0));
    gpu.work(50_000);
    serve(SERVE_MS);
    assertThat(w.close(42)).isEqualTo(Energy.estimated(42));
  }

  @Test
  void close_whenOneDeclaredDomainNotLive_isEstimator() {
    TimedCounter cpu = live(CPU0);
    TimedCounter dram = live(DRAM0);
    dram.freeze();
    CounterMeter meter = meter(cpu, dram);
    meter.probeNow();
    MeterWindow w = meter.open(Set.of(CPU0, DRAM0));
    serve(SERVE_MS);
    assertThat(w.close(42).provenance()).isEqualTo(Provenance.Estimator);
  }

  @Test
  void close_whenPackageDeclaredAndItsDramHasACounter_coversTheDramToo() {
    TimedCounter cpu = live(CPU0);
    TimedCounter dram = live(DRAM0);
    CounterMeter meter = meter(cpu, dram);
    meter.probeNow();
    long before = cpu.drawnUj() + dram.drawnUj();
    MeterWindow w = meter.open(Set.of(CPU0));
    serve(SERVE_MS);
    assertThat(w.close(1).measuredUj()).hasValue(cpu.drawnUj() + dram.drawnUj() - before);
    // And a DRAM counter that is not live makes the package-only declaration Estimator.
    dram.freeze();
    MeterWindow next = meter.open(Set.of(CPU0));
    serve(SERVE_MS);
    assertThat(next.close(1).provenance()).isEqualTo(Provenance.Estimator);
  }

  @Test
  void close_whenBackendDeclaresNoDomains_isEstimator() {
    CounterMeter meter = meter(live(CPU0));
    meter.probeNow();
    MeterWindow w = meter.open(Set.of());
    serve(SERVE_MS);
    assertThat(w.close(7)).isEqualTo(Energy.estimated(7));
  }

  @Test
  void close_whenWindowsOverlap_isModelBasedWithoutMeasurement() {
    TimedCounter cpu = live(CPU0); // 10 µJ per ms idle
    CounterMeter meter = meter(cpu);
    meter.probeNow();
    MeterWindow a = meter.open(Set.of(CPU0));
    cpu.work(1_000);
    serve(SERVE_MS); // a alone: 1 000 + 500
    MeterWindow b = meter.open(Set.of(CPU0));
    cpu.work(600);
    serve(SERVE_MS); // shared: (600 + 500) / 2 each
    Energy eb = b.close(10);
    cpu.work(400);
    serve(SERVE_MS); // a alone again: 400 + 500
    Energy ea = a.close(20);
    assertThat(ea.provenance()).isEqualTo(Provenance.ModelBased);
    assertThat(eb.provenance()).isEqualTo(Provenance.ModelBased);
    assertThat(ea.measuredUj()).isEmpty();
    assertThat(eb.measuredUj()).isEmpty();
    assertThat(ea.estimatedUj()).isEqualTo(1_500 + 550 + 900);
    assertThat(eb.estimatedUj()).isEqualTo(550);
  }

  @Test
  void close_whenOverlappingWindowCouldNotItselfBeGraded_stillMarksTheOtherOverlapped() {
    TimedCounter cpu = live(CPU0);
    CounterMeter meter = meter(cpu);
    meter.probeNow();
    MeterWindow a = meter.open(Set.of(CPU0));
    // b's backend also uses a GPU nobody counts: b is Estimator, but it still ran on cpu:0.
    MeterWindow b = meter.open(Set.of(CPU0, GPU0));
    serve(SERVE_MS);
    assertThat(b.close(5).provenance()).isEqualTo(Provenance.Estimator);
    assertThat(a.close(5).provenance()).isEqualTo(Provenance.ModelBased);
  }

  @Test
  void close_whenOverlapOnlyOnAnotherDomain_staysHwShunt() {
    TimedCounter cpu = live(CPU0);
    TimedCounter gpu = live(GPU0);
    CounterMeter meter = meter(cpu, gpu);
    meter.probeNow();
    MeterWindow a = meter.open(Set.of(CPU0));
    MeterWindow b = meter.open(Set.of(GPU0));
    cpu.work(100);
    gpu.work(900);
    serve(SERVE_MS);
    assertThat(a.close(1).measuredUj()).hasValue(100 + SERVE_MS * 10);
    assertThat(b.close(1).measuredUj()).hasValue(900 + SERVE_MS * 10);
  }

  @Test
  void close_whenAbandonedWindowOverlapped_isModelBased() {
    TimedCounter cpu = live(CPU0);
    CounterMeter meter = meter(cpu);
    meter.probeNow();
    MeterWindow a = meter.open(Set.of(CPU0));
    MeterWindow failed = meter.open(Set.of(CPU0));
    serve(SERVE_MS);
    failed.abandon();
    assertThat(a.close(1).provenance()).isEqualTo(Provenance.ModelBased);
  }

  @Test
  void close_forSequentialWindowsAPeriodApart_eachIsHwShunt() {
    TimedCounter cpu = live(CPU0);
    CounterMeter meter = meter(cpu);
    meter.probeNow();
    for (int i = 1; i <= 3; i++) {
      // A period after the last close: the counter has published that serve (BackToBackWindowTest).
      clock.burnUntil(clock.nanoTime() + meter.updatePeriodNanos(CPU0));
      MeterWindow w = meter.open(Set.of(CPU0));
      cpu.work(i * 100L);
      serve(SERVE_MS);
      assertThat(w.close(0)).isEqualTo(Energy.measured(i * 100L + SERVE_MS * 10, 0));
    }
  }

  @Test
  void close_includesIdlePowerOfTheDomain() {
    TimedCounter cpu = new TimedCounter(CPU0, clock, 1, 5_000, false); // 5 W idle
    CounterMeter meter = meter(cpu);
    meter.probeNow();
    MeterWindow w = meter.open(Set.of(CPU0));
    serve(10); // idle for 10 ms: 50 000 µJ
    cpu.work(20_000); // the serve's own work
    serve(SERVE_MS - 10);
    Energy e = w.close(1);
    assertThat(e.provenance()).isEqualTo(Provenance.HwShunt);
    assertThat(e.measuredUj()).as("idle is not subtracted").hasValue(SERVE_MS * 5_000 + 20_000);
  }

  @Test
  void close_whenWindowStraddlesAProbe_isEstimator() {
    TimedCounter cpu = live(CPU0);
    CounterMeter meter = meter(cpu);
    meter.probeNow();
    MeterWindow w = meter.open(Set.of(CPU0));
    meter.probeNow(); // its CPU burn lands on the package during the window
    assertThat(meter.liveDomains()).contains(CPU0);
    assertThat(w.close(3).provenance()).isEqualTo(Provenance.Estimator);
  }

  @Test
  void close_whenLiveCounterStopsAdvancing_demotesItAndReprobes() {
    TimedCounter cpu = live(CPU0);
    CounterMeter meter = meter(cpu);
    meter.probeNow();
    cpu.freeze();
    MeterWindow w = meter.open(Set.of(CPU0));
    serve(SERVE_MS);
    assertThat(w.close(3).provenance()).isEqualTo(Provenance.Estimator);
    assertThat(meter.counters().getFirst().issue()).contains(CounterIssue.STALLED);
    assertThat(scheduled).as("a re-probe was scheduled").hasSize(1);
    scheduled.removeFirst().run();
    assertThat(meter.counters().getFirst().issue()).contains(CounterIssue.FROZEN);
    // Once it advances again, the next re-probe restores it.
    TimedCounter again = live(CPU0); // a fresh refresh loop: rebuild the meter over it
    CounterMeter second = meter(again);
    second.probeNow();
    assertThat(second.liveDomains()).containsExactly(CPU0);
  }

  @Test
  void open_afterReprobePeriod_schedulesAProbe() {
    TimedCounter cpu = live(CPU0);
    CounterMeter meter = meter(cpu);
    meter.probeNow();
    meter.open(Set.of(CPU0)).abandon();
    assertThat(scheduled).isEmpty();
    serve(Duration.ofMinutes(10).toMillis() + 1);
    meter.open(Set.of(CPU0)).abandon();
    meter.open(Set.of(CPU0)).abandon();
    assertThat(scheduled).as("one probe, not one per window").hasSize(1);
    scheduled.removeFirst().run();
    assertThat(meter.liveDomains()).containsExactly(CPU0);
  }

  @Test
  void close_whenCounterReadFails_isEstimatorAndCounterDemoted() {
    TimedCounter cpu = live(CPU0);
    CounterMeter meter = meter(cpu);
    meter.probeNow();
    MeterWindow w = meter.open(Set.of(CPU0));
    serve(SERVE_MS);
    cpu.failWith(CounterIssue.UNREADABLE);
    assertThat(w.close(8)).isEqualTo(Energy.estimated(8));
    assertThat(meter.counters().getFirst().issue()).contains(CounterIssue.READ_FAILED);
    assertThat(meter.counters().getFirst().state()).isEqualTo(CounterState.NOT_LIVE);
  }

  @Test
  void close_twice_isRefused() {
    CounterMeter meter = meter(live(CPU0));
    meter.probeNow();
    MeterWindow w = meter.open(Set.of(CPU0));
    w.close(1);
    assertThatThrownBy(() -> w.close(1)).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(w::abandon).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void close_withNegativeEstimate_isRefusedAndLeavesTheLedger() {
    TimedCounter cpu = live(CPU0);
    CounterMeter meter = meter(cpu);
    meter.probeNow();
    MeterWindow bad = meter.open(Set.of(CPU0));
    assertThatThrownBy(() -> bad.close(-1)).isInstanceOf(IllegalArgumentException.class);
    // A period later, so that only a window still registered could make the next one overlapped.
    clock.burnUntil(clock.nanoTime() + meter.updatePeriodNanos(CPU0));
    MeterWindow next = meter.open(Set.of(CPU0));
    serve(SERVE_MS);
    assertThat(next.close(0).provenance()).isEqualTo(Provenance.HwShunt);
  }

  @Test
  void close_neverYieldsHwShuntUnlessAloneLiveAndCovered_randomised() {
    long seed = new Random().nextLong();
    Random rnd = new Random(seed);
    for (int round = 0; round < 100; round++) {
      FakeClock roundClock = new FakeClock();
      TimedCounter cpu = TimedCounter.rapl(CPU0, roundClock);
      TimedCounter gpu = TimedCounter.rapl(GPU0, roundClock);
      boolean gpuCounted = rnd.nextBoolean();
      List<EnergyChannel> channels = gpuCounted ? List.of(cpu, gpu) : List.of(cpu);
      CounterMeter meter =
          new CounterMeter(
              channels,
              List.of(),
              LivenessPolicy.standard(),
              Duration.ofMinutes(10),
              Optional.empty(),
              roundClock,
              scheduled::add);
      roundClock.watch(meter);
      meter.probeNow();
      int n = 1 + rnd.nextInt(4);
      List<MeterWindow> windows = new ArrayList<>();
      List<Set<EnergyDomain>> declared = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        Set<EnergyDomain> d = rnd.nextBoolean() ? Set.of(CPU0) : Set.of(CPU0, GPU0);
        declared.add(d);
        windows.add(meter.open(d));
        cpu.work(rnd.nextInt(1_000));
        roundClock.advanceMillis(SERVE_MS);
      }
      long cpuBefore = cpu.drawnUj();
      long sharesOnCpuOnly = 0;
      for (int i = 0; i < n; i++) {
        Energy e = windows.get(i).close(5);
        boolean covered = gpuCounted || !declared.get(i).contains(GPU0);
        String why = "seed " + seed + " round " + round + " window " + i;
        if (e.provenance() == Provenance.HwShunt) {
          assertThat(n).as(why).isEqualTo(1);
          assertThat(covered).as(why).isTrue();
        }
        if (n > 1 && covered) {
          assertThat(e.provenance()).as(why).isEqualTo(Provenance.ModelBased);
          assertThat(e.measuredUj()).as(why).isEqualTo(OptionalLong.empty());
        }
        if (!covered) {
          assertThat(e.provenance()).as(why).isEqualTo(Provenance.Estimator);
        }
        if (e.provenance() != Provenance.Estimator && declared.get(i).equals(Set.of(CPU0))) {
          sharesOnCpuOnly += e.uj();
        }
      }
      assertThat(sharesOnCpuOnly).as("seed " + seed).isLessThanOrEqualTo(cpuBefore + n);
    }
  }

  /**
   * Regression: the full suite failed once in windowsFromManyThreads_neverOvercountTheCounter. A
   * thread read the clock, another moved time on, and the first then read the counter's new value
   * and dated it before the move; the next read, a moment later, saw the same value "unchanged for
   * 50 ms" and demoted a live counter as STALLED. Here the move happens inside the read.
   */
  @Test
  void valueThatChangesWhileItIsRead_isDatedAfterTheRead_soTheNextReadSeesNoStall() {
    TimedCounter cpu = live(CPU0);
    // Unwatched: under the watch's rule a close whose read took 50 ms proves no change within five
    // 1 ms periods of its end, and is refused (SPEC.md 40 §4); this test is about the read after.
    CounterMeter meter = ProbedMeter.unprobed(clock, scheduled::add, cpu);
    meter.probeNow();
    MeterWindow first = meter.open(Set.of(CPU0));
    cpu.work(10);
    serve(SERVE_MS);
    boolean[] armed = {true};
    cpu.onRead(
        () -> {
          if (armed[0]) {
            armed[0] = false;
            clock.advanceMillis(SERVE_MS); // descheduled between the clock and the counter
          }
        });
    assertThat(first.close(1).provenance()).isEqualTo(Provenance.HwShunt);
    MeterWindow next = meter.open(Set.of(CPU0)); // same value, no time since the read above
    cpu.work(10);
    serve(SERVE_MS);
    assertThat(next.close(1).provenance()).isEqualTo(Provenance.HwShunt);
  }

  // 64 serves on one package at once, opened and closed a millisecond apart: a package-wide counter
  // cannot tell them apart, so none is a reading (no measured_uj), and their shares add up to what
  // the counter counted from the first open to the last close, each rounded by at most half a µJ.
  @Test
  void sixtyFourOverlappingWindows_areModelBased_andTheirSharesAddUpToTheCounter()
      throws CounterException {
    TimedCounter cpu = live(CPU0);
    CounterMeter meter = meter(cpu);
    meter.probeNow();
    long before = cpu.readTotalUj();
    List<MeterWindow> windows = new ArrayList<>();
    for (int i = 0; i < 64; i++) {
      windows.add(meter.open(Set.of(CPU0)));
      cpu.work(100 + i);
      serve(1);
    }
    serve(SERVE_MS);
    long shares = 0;
    for (int i = 0; i < 64; i++) {
      if (i > 0) {
        serve(1);
      }
      Energy e = windows.get(i).close(5);
      assertThat(e.provenance()).as("window %d", i).isEqualTo(Provenance.ModelBased);
      assertThat(e.measuredUj()).as("window %d", i).isEmpty();
      shares += e.estimatedUj();
    }
    long counted = cpu.readTotalUj() - before;
    assertThat(shares).isBetween(counted - 32, counted + 32);
  }

  @Test
  void windowsFromManyThreads_neverOvercountTheCounter() throws Exception {
    TimedCounter cpu = live(CPU0);
    CounterMeter meter = meter(cpu);
    meter.probeNow();
    long before = cpu.readTotalUj();
    AtomicLong attributed = new AtomicLong();
    AtomicLong estimatorFigures = new AtomicLong();
    List<Thread> threads = new ArrayList<>();
    int perThread = 500;
    for (int t = 0; t < 4; t++) {
      threads.add(
          Thread.ofPlatform()
              .start(
                  () -> {
                    for (int i = 0; i < perThread; i++) {
                      MeterWindow w = meter.open(Set.of(CPU0));
                      cpu.work(10);
                      clock.advanceMillis(SERVE_MS);
                      Energy e = w.close(1);
                      if (e.provenance() == Provenance.Estimator) {
                        estimatorFigures.incrementAndGet();
                      }
                      attributed.addAndGet(e.uj());
                    }
                  }));
    }
    for (Thread t : threads) {
      t.join();
    }
    assertThat(estimatorFigures.get()).as("no fallback on a live counter").isZero();
    long counted = cpu.readTotalUj() - before;
    // Rounding each share may add at most half a µJ per window; energy after the last close is
    // in the counter but in no window.
    assertThat(attributed.get()).isBetween(0L, counted + 4 * perThread);
    assertThat(attributed.get()).isGreaterThan(counted / 2);
  }
}
