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
import org.junit.jupiter.api.Test;
import org.meshjava.core.Energy;
import org.meshjava.core.EnergyDomain;
import org.meshjava.core.Provenance;

/** The grading rules of §3.3 on scripted counters, one rule per test. */
class CounterMeterGradingTest {
  private static final EnergyDomain CPU0 = EnergyDomain.cpuPackage(0);
  private static final EnergyDomain DRAM0 = EnergyDomain.dram(0);
  private static final EnergyDomain GPU0 = EnergyDomain.gpu(0);

  private final FakeClock clock = new FakeClock();
  private final List<Runnable> scheduled = new ArrayList<>();

  /** A meter whose re-probes run only when the test says so. */
  private CounterMeter meter(EnergyChannel... channels) {
    return new CounterMeter(
        List.of(channels),
        List.of(),
        LivenessPolicy.standard(),
        Duration.ofMinutes(10),
        Duration.ofMillis(250),
        Optional.empty(),
        clock,
        scheduled::add);
  }

  /** A channel that advances on every probe read, then only by what the test adds. */
  private static ScriptedChannel live(EnergyDomain d) {
    return new ScriptedChannel(d, 100);
  }

  private static void quiet(ScriptedChannel... channels) {
    for (ScriptedChannel c : channels) {
      c.advanceEvery(1, 0);
    }
  }

  @Test
  void close_whenAloneOnLiveCoveredDomains_isHwShuntWithTheCounterDelta() {
    ScriptedChannel cpu = live(CPU0);
    ScriptedChannel dram = live(DRAM0);
    CounterMeter meter = meter(cpu, dram);
    meter.probeNow();
    quiet(cpu, dram);
    MeterWindow w = meter.open(Set.of(CPU0, DRAM0));
    cpu.add(5_000);
    dram.add(700);
    Energy e = w.close(1_234);
    assertThat(e.provenance()).isEqualTo(Provenance.HwShunt);
    assertThat(e.measuredUj()).hasValue(5_700);
    assertThat(e.estimatedUj()).isEqualTo(1_234);
  }

  @Test
  void close_whenCounterNeverProvedLive_isEstimator() {
    ScriptedChannel cpu = new ScriptedChannel(CPU0, 100);
    cpu.freeze();
    CounterMeter meter = meter(cpu);
    assertThat(meter.probeNow().getFirst().issue()).contains(CounterIssue.FROZEN);
    MeterWindow w = meter.open(Set.of(CPU0));
    cpu.add(5_000);
    assertThat(w.close(99)).isEqualTo(Energy.estimated(99));
  }

  @Test
  void close_beforeAnyProbe_isEstimator() {
    ScriptedChannel cpu = live(CPU0);
    CounterMeter meter = meter(cpu);
    MeterWindow w = meter.open(Set.of(CPU0));
    cpu.add(5_000);
    assertThat(w.close(99).provenance()).isEqualTo(Provenance.Estimator);
  }

  @Test
  void close_whenLumpyCounter_isEstimator() {
    ScriptedChannel cpu = new ScriptedChannel(CPU0, 100);
    cpu.advanceEvery(3, 100);
    CounterMeter meter = meter(cpu);
    assertThat(meter.probeNow().getFirst().issue()).contains(CounterIssue.LUMPY);
    MeterWindow w = meter.open(Set.of(CPU0));
    assertThat(w.close(99).provenance()).isEqualTo(Provenance.Estimator);
  }

  @Test
  void close_whenGpuCounterLiveButCpuHasNone_isEstimator() {
    ScriptedChannel gpu = live(GPU0);
    CounterMeter meter = meter(gpu);
    meter.probeNow();
    quiet(gpu);
    MeterWindow w = meter.open(Set.of(CPU0, GPU0));
    gpu.add(50_000);
    assertThat(w.close(42)).isEqualTo(Energy.estimated(42));
  }

  @Test
  void close_whenOneDeclaredDomainNotLive_isEstimator() {
    ScriptedChannel cpu = live(CPU0);
    ScriptedChannel dram = new ScriptedChannel(DRAM0, 0);
    dram.freeze();
    CounterMeter meter = meter(cpu, dram);
    meter.probeNow();
    quiet(cpu);
    MeterWindow w = meter.open(Set.of(CPU0, DRAM0));
    cpu.add(1_000);
    assertThat(w.close(42).provenance()).isEqualTo(Provenance.Estimator);
  }

  @Test
  void close_whenBackendDeclaresNoDomains_isEstimator() {
    ScriptedChannel cpu = live(CPU0);
    CounterMeter meter = meter(cpu);
    meter.probeNow();
    assertThat(meter.open(Set.of()).close(7)).isEqualTo(Energy.estimated(7));
  }

  @Test
  void close_whenWindowsOverlap_isModelBasedWithoutMeasurement() {
    ScriptedChannel cpu = live(CPU0);
    CounterMeter meter = meter(cpu);
    meter.probeNow();
    quiet(cpu);
    MeterWindow a = meter.open(Set.of(CPU0));
    cpu.add(1_000); // a alone
    MeterWindow b = meter.open(Set.of(CPU0));
    cpu.add(600); // shared: 300 each
    Energy eb = b.close(10);
    cpu.add(400); // a alone again
    Energy ea = a.close(20);
    assertThat(ea.provenance()).isEqualTo(Provenance.ModelBased);
    assertThat(eb.provenance()).isEqualTo(Provenance.ModelBased);
    assertThat(ea.measuredUj()).isEmpty();
    assertThat(eb.measuredUj()).isEmpty();
    assertThat(ea.estimatedUj()).isEqualTo(1_700);
    assertThat(eb.estimatedUj()).isEqualTo(300);
    assertThat(ea.uj() + eb.uj()).as("shares sum to the counter delta").isEqualTo(2_000);
  }

  @Test
  void close_whenOverlappingWindowCouldNotItselfBeGraded_stillMarksTheOtherOverlapped() {
    ScriptedChannel cpu = live(CPU0);
    CounterMeter meter = meter(cpu);
    meter.probeNow();
    quiet(cpu);
    MeterWindow a = meter.open(Set.of(CPU0));
    // b's backend also uses a GPU nobody counts: b is Estimator, but it still ran on cpu:0.
    MeterWindow b = meter.open(Set.of(CPU0, GPU0));
    cpu.add(1_000);
    assertThat(b.close(5).provenance()).isEqualTo(Provenance.Estimator);
    assertThat(a.close(5).provenance()).isEqualTo(Provenance.ModelBased);
  }

  @Test
  void close_whenOverlapOnlyOnAnotherDomain_staysHwShunt() {
    ScriptedChannel cpu = live(CPU0);
    ScriptedChannel gpu = live(GPU0);
    CounterMeter meter = meter(cpu, gpu);
    meter.probeNow();
    quiet(cpu, gpu);
    MeterWindow a = meter.open(Set.of(CPU0));
    MeterWindow b = meter.open(Set.of(GPU0));
    cpu.add(100);
    gpu.add(900);
    assertThat(a.close(1).measuredUj()).hasValue(100);
    assertThat(b.close(1).measuredUj()).hasValue(900);
  }

  @Test
  void close_whenAbandonedWindowOverlapped_isModelBased() {
    ScriptedChannel cpu = live(CPU0);
    CounterMeter meter = meter(cpu);
    meter.probeNow();
    quiet(cpu);
    MeterWindow a = meter.open(Set.of(CPU0));
    MeterWindow failed = meter.open(Set.of(CPU0));
    cpu.add(1_000);
    failed.abandon();
    assertThat(a.close(1).provenance()).isEqualTo(Provenance.ModelBased);
  }

  @Test
  void close_forSequentialWindows_eachIsHwShunt() {
    ScriptedChannel cpu = live(CPU0);
    CounterMeter meter = meter(cpu);
    meter.probeNow();
    quiet(cpu);
    for (int i = 1; i <= 3; i++) {
      MeterWindow w = meter.open(Set.of(CPU0));
      cpu.add(i * 100L);
      assertThat(w.close(0)).isEqualTo(Energy.measured(i * 100L, 0));
    }
  }

  @Test
  void close_includesIdlePowerOfTheDomain() {
    ScriptedChannel cpu = live(CPU0);
    CounterMeter meter = meter(cpu);
    meter.probeNow();
    quiet(cpu);
    // The package idles at 5 W: 5 µJ per µs, whether or not a serve does any work.
    clock.onAdvance(nanos -> cpu.add(nanos * 5 / 1_000));
    MeterWindow w = meter.open(Set.of(CPU0));
    clock.advanceMillis(10); // idle for 10 ms: 50 000 µJ
    cpu.add(20_000); // the serve's own work
    Energy e = w.close(1);
    assertThat(e.provenance()).isEqualTo(Provenance.HwShunt);
    assertThat(e.measuredUj()).as("idle is not subtracted").hasValue(70_000);
  }

  @Test
  void close_whenWindowStraddlesAProbe_isEstimator() {
    ScriptedChannel cpu = live(CPU0);
    CounterMeter meter = meter(cpu);
    meter.probeNow();
    MeterWindow w = meter.open(Set.of(CPU0));
    meter.probeNow(); // its CPU burn lands on the package during the window
    assertThat(meter.liveDomains()).contains(CPU0);
    assertThat(w.close(3).provenance()).isEqualTo(Provenance.Estimator);
  }

  @Test
  void close_whenLiveCounterStopsAdvancing_demotesItAndReprobes() {
    ScriptedChannel cpu = live(CPU0);
    CounterMeter meter = meter(cpu);
    meter.probeNow();
    cpu.freeze();
    MeterWindow w = meter.open(Set.of(CPU0));
    clock.advanceMillis(300); // past stallAfter with no advance
    assertThat(w.close(3).provenance()).isEqualTo(Provenance.Estimator);
    assertThat(meter.counters().getFirst().issue()).contains(CounterIssue.STALLED);
    assertThat(scheduled).as("a re-probe was scheduled").hasSize(1);
    scheduled.removeFirst().run();
    assertThat(meter.counters().getFirst().issue()).contains(CounterIssue.FROZEN);
    // Once it advances again, the next re-probe restores it.
    cpu.advanceEvery(1, 50);
    clock.advanceMillis(Duration.ofMinutes(11).toMillis());
    meter.open(Set.of(CPU0)).abandon();
    assertThat(scheduled).hasSize(1);
    scheduled.removeFirst().run();
    assertThat(meter.liveDomains()).containsExactly(CPU0);
  }

  @Test
  void close_whenShortWindowSeesNoAdvance_keepsCounterLive() {
    ScriptedChannel cpu = live(CPU0);
    CounterMeter meter = meter(cpu);
    meter.probeNow();
    quiet(cpu);
    MeterWindow w = meter.open(Set.of(CPU0));
    clock.advanceMillis(1);
    assertThat(w.close(3)).isEqualTo(Energy.measured(0, 3));
    assertThat(meter.liveDomains()).containsExactly(CPU0);
  }

  @Test
  void open_afterReprobePeriod_schedulesAProbe() {
    ScriptedChannel cpu = live(CPU0);
    CounterMeter meter = meter(cpu);
    meter.probeNow();
    meter.open(Set.of(CPU0)).abandon();
    assertThat(scheduled).isEmpty();
    clock.advanceMillis(Duration.ofMinutes(10).toMillis() + 1);
    meter.open(Set.of(CPU0)).abandon();
    meter.open(Set.of(CPU0)).abandon();
    assertThat(scheduled).as("one probe, not one per window").hasSize(1);
    long before = cpu.reads();
    scheduled.removeFirst().run();
    assertThat(cpu.reads() - before).isGreaterThanOrEqualTo(20);
  }

  @Test
  void close_whenCounterReadFails_isEstimatorAndCounterDemoted() {
    ScriptedChannel cpu = live(CPU0);
    CounterMeter meter = meter(cpu);
    meter.probeNow();
    MeterWindow w = meter.open(Set.of(CPU0));
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
    ScriptedChannel cpu = live(CPU0);
    CounterMeter meter = meter(cpu);
    meter.probeNow();
    quiet(cpu);
    MeterWindow bad = meter.open(Set.of(CPU0));
    assertThatThrownBy(() -> bad.close(-1)).isInstanceOf(IllegalArgumentException.class);
    MeterWindow next = meter.open(Set.of(CPU0));
    cpu.add(10);
    assertThat(next.close(0).provenance()).isEqualTo(Provenance.HwShunt);
  }

  @Test
  void close_neverYieldsHwShuntUnlessAloneLiveAndCovered_randomised() {
    long seed = new Random().nextLong();
    Random rnd = new Random(seed);
    for (int round = 0; round < 200; round++) {
      ScriptedChannel cpu = live(CPU0);
      ScriptedChannel gpu = live(GPU0);
      boolean gpuCounted = rnd.nextBoolean();
      CounterMeter meter = gpuCounted ? meter(cpu, gpu) : meter(cpu);
      meter.probeNow();
      quiet(cpu, gpu);
      int n = 1 + rnd.nextInt(4);
      List<MeterWindow> windows = new ArrayList<>();
      List<Set<EnergyDomain>> declared = new ArrayList<>();
      long added = 0;
      for (int i = 0; i < n; i++) {
        Set<EnergyDomain> d = rnd.nextBoolean() ? Set.of(CPU0) : Set.of(CPU0, GPU0);
        declared.add(d);
        windows.add(meter.open(d));
        long uj = rnd.nextInt(1_000);
        cpu.add(uj);
        added += uj;
      }
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
      assertThat(sharesOnCpuOnly).as("seed " + seed).isLessThanOrEqualTo(added + n);
    }
  }

  @Test
  void windowsFromManyThreads_neverOvercountTheCounter() throws Exception {
    ScriptedChannel cpu = live(CPU0);
    CounterMeter meter = meter(cpu);
    meter.probeNow();
    quiet(cpu);
    long before = cpu.readTotalUj();
    java.util.concurrent.atomic.AtomicLong attributed = new java.util.concurrent.atomic.AtomicLong();
    java.util.concurrent.atomic.AtomicLong added = new java.util.concurrent.atomic.AtomicLong();
    java.util.concurrent.atomic.AtomicLong estimatorFigures = new java.util.concurrent.atomic.AtomicLong();
    List<Thread> threads = new ArrayList<>();
    for (int t = 0; t < 4; t++) {
      threads.add(
          Thread.ofPlatform()
              .start(
                  () -> {
                    for (int i = 0; i < 2_000; i++) {
                      MeterWindow w = meter.open(Set.of(CPU0));
                      cpu.add(10);
                      added.addAndGet(10);
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
    assertThat(added.get()).isEqualTo(4 * 2_000 * 10);
    assertThat(cpu.readTotalUj() - before).isEqualTo(added.get());
    // Rounding each share may add at most half a µJ per window.
    assertThat(attributed.get()).isBetween(added.get() - 8_000, added.get() + 8_000);
  }
}
