package org.meshjava.energy;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.meshjava.core.Energy;
import org.meshjava.core.EnergyDomain;
import org.meshjava.core.Provenance;

/**
 * Regressions for figures graded {@code HwShunt} although the counters did not see what they
 * claimed (issue 22), each reproduced on fake counters and a fake clock.
 */
class HonestHwShuntTest {
  private static final EnergyDomain CPU0 = EnergyDomain.cpuPackage(0);
  private static final EnergyDomain DRAM0 = EnergyDomain.dram(0);
  private static final EnergyDomain GPU0 = EnergyDomain.gpu(0);

  private final FakeClock clock = new FakeClock();
  private final List<Runnable> scheduled = new ArrayList<>();

  private CounterMeter meter(EnergyChannel... channels) {
    return clock.watch(ProbedMeter.unprobed(clock, scheduled::add, channels));
  }

  // Item 1: a window opened while the counter was not live was left out of the ledger, so a
  // window after the re-probe was graded HwShunt with that serve's energy inside.
  @Test
  void serveOpenedWhileCounterDemoted_stillOverlapsWindowsAfterTheReprobe() {
    TimedCounter cpu = TimedCounter.rapl(CPU0, clock);
    CounterMeter meter = meter(cpu);
    meter.probeNow();
    cpu.failWith(CounterIssue.NATIVE_ERROR);
    meter.open(Set.of(CPU0)).abandon(); // the failed read demotes the counter
    assertThat(meter.liveDomains()).isEmpty();
    cpu.failWith(null);
    MeterWindow unseen = meter.open(Set.of(CPU0)); // opened while the counter is not live
    assertThat(scheduled).hasSize(1);
    scheduled.removeFirst().run(); // the re-probe proves it live again
    assertThat(meter.liveDomains()).containsExactly(CPU0);
    MeterWindow later = meter.open(Set.of(CPU0));
    cpu.work(5_000_000); // the unseen serve's work lands inside the later window
    clock.advanceMillis(50);
    Energy e = later.close(100);
    assertThat(e.provenance()).isEqualTo(Provenance.ModelBased);
    assertThat(e.measuredUj()).isEmpty();
    assertThat(unseen.close(7)).isEqualTo(Energy.estimated(7));
  }

  // Item 2: a re-probe of one counter burns a core, but windows on other domains kept their
  // epoch and were graded HwShunt with the probe's energy inside.
  @Test
  void windowOnCpu_acrossAProbeOfTheGpuCounter_isNotHwShunt() {
    TimedCounter cpu = TimedCounter.rapl(CPU0, clock); // gains energy on every fake-clock burn
    TimedCounter gpu = TimedCounter.rapl(GPU0, clock);
    CounterMeter meter = meter(cpu, gpu);
    meter.probeNow();
    gpu.failWith(CounterIssue.NATIVE_ERROR);
    meter.open(Set.of(GPU0)).abandon(); // demotes the GPU only; its re-probe is scheduled
    gpu.failWith(null);
    assertThat(scheduled).hasSize(1);
    MeterWindow acrossProbe = meter.open(Set.of(CPU0));
    scheduled.removeFirst().run(); // 400 ms of burn on the CPU while the GPU is probed
    assertThat(meter.liveDomains()).containsExactlyInAnyOrder(CPU0, GPU0);
    assertThat(acrossProbe.close(1).provenance()).isEqualTo(Provenance.Estimator);
  }

  // The same across meters: two stewards in one process that each discovered a meter read the
  // same package, and one meter's probe burn landed in the other's windows, graded HwShunt.
  @Test
  void windowOfOneMeter_acrossAProbeRunByAnotherMeterOfTheProcess_isNotHwShunt() {
    CounterMeter first = meter(TimedCounter.rapl(CPU0, clock));
    CounterMeter second = meter(TimedCounter.rapl(CPU0, clock)); // the same package, read again
    first.probeNow();
    second.probeNow();
    MeterWindow w = first.open(Set.of(CPU0));
    second.probeNow(); // 400 ms of burn on some package
    assertThat(w.close(1).provenance()).isEqualTo(Provenance.Estimator);
    clock.advanceMillis(5); // the counter has published w's serve (BackToBackWindowTest)
    MeterWindow after = first.open(Set.of(CPU0));
    clock.advanceMillis(50);
    assertThat(after.close(1).provenance()).isEqualTo(Provenance.HwShunt);
    second.close();
    clock.advanceMillis(5);
    MeterWindow afterClose = first.open(Set.of(CPU0));
    second.probeNow(); // a closed meter probes nothing
    clock.advanceMillis(50);
    assertThat(afterClose.close(1).provenance()).isEqualTo(Provenance.HwShunt);
    first.close();
  }

  @Test
  void windowOnCpu_openedAndClosedDuringAProbeOfTheGpuCounter_isNotHwShunt() {
    TimedCounter cpu = TimedCounter.rapl(CPU0, clock);
    TimedCounter gpu = TimedCounter.rapl(GPU0, clock);
    CounterMeter meter = meter(cpu, gpu);
    meter.probeNow();
    gpu.failWith(CounterIssue.NATIVE_ERROR);
    meter.open(Set.of(GPU0)).abandon();
    gpu.failWith(null);
    AtomicReference<MeterWindow> inside = new AtomicReference<>();
    AtomicReference<Energy> figure = new AtomicReference<>();
    long probeStart = clock.nanoTime();
    gpu.onRead(
        () -> {
          long into = clock.nanoTime() - probeStart;
          if (inside.get() == null && into >= 100_000_000L) {
            inside.set(meter.open(Set.of(CPU0)));
          } else if (inside.get() != null && figure.get() == null && into >= 300_000_000L) {
            figure.set(inside.get().close(1));
          }
        });
    scheduled.removeFirst().run();
    assertThat(figure.get()).isNotNull();
    assertThat(figure.get().provenance()).isEqualTo(Provenance.Estimator);
  }

  @Test
  void reprobe_whenSeveralCountersAreDue_probesThemInOnePass() {
    TimedCounter cpu = TimedCounter.rapl(CPU0, clock);
    TimedCounter dram = TimedCounter.rapl(DRAM0, clock);
    CounterMeter meter = meter(cpu, dram);
    meter.probeNow();
    clock.advanceMillis(Duration.ofMinutes(11).toMillis());
    meter.open(Set.of(GPU0)).abandon();
    assertThat(scheduled).as("one probe disturbs every window: one for both").hasSize(1);
    long before = clock.nanoTime();
    scheduled.removeFirst().run();
    // One probe's 400 ms, and the wait of one update period for its load to show, not two probes.
    // The wait is for the slowest live counter of any meter in the process, and other tests leave
    // meters open (NVML-like, 100 ms or more): under two probes' 800 ms either way.
    assertThat(clock.nanoTime() - before).isBetween(400_000_000L, 800_000_000L);
    assertThat(meter.liveDomains()).containsExactlyInAnyOrder(CPU0, DRAM0);
  }

  // Item 3: a counter frozen after its probe read 0 over short windows, each graded HwShunt.
  @Test
  void counterFrozenAfterItsProbe_underShortWindows_isDemotedAtOnceAndNeverHwShunt() {
    TimedCounter cpu = TimedCounter.rapl(CPU0, clock);
    CounterMeter meter = meter(cpu);
    meter.probeNow();
    cpu.freeze();
    for (int i = 0; i < 100; i++) {
      MeterWindow w = meter.open(Set.of(CPU0));
      cpu.work(1_000);
      clock.advanceMillis(20);
      Energy e = w.close(1_000);
      assertThat(e.provenance()).as("window " + i).isEqualTo(Provenance.Estimator);
      if (i == 0) {
        assertThat(meter.counters().getFirst().issue())
            .as("demoted by the first 20 ms window, not after 250 ms")
            .contains(CounterIssue.STALLED);
      }
    }
  }

  @Test
  void windowShorterThanTenUpdatePeriods_isNotHwShunt() {
    // A GPU-like counter refreshed every 25 ms (probed at NVML's cadence).
    TimedCounter gpu = new TimedCounter(GPU0, clock, 25, 30_000, true);
    CounterMeter meter = meter(gpu);
    meter.probeNow();
    assertThat(meter.liveDomains()).containsExactly(GPU0);
    MeterWindow shortWindow = meter.open(Set.of(GPU0));
    gpu.work(10_000);
    clock.advanceMillis(100); // four refreshes: the delta may be off by a quarter
    assertThat(shortWindow.close(10_000).provenance()).isEqualTo(Provenance.Estimator);
    assertThat(meter.liveDomains()).as("short is not stalled").containsExactly(GPU0);
    // A period: the short serve is published (BackToBackWindowTest).
    clock.burnUntil(clock.nanoTime() + meter.updatePeriodNanos(GPU0));
    MeterWindow longWindow = meter.open(Set.of(GPU0));
    clock.advanceMillis(400);
    assertThat(longWindow.close(10_000).provenance()).isEqualTo(Provenance.HwShunt);
  }

  // A serve shorter than a slow counter's refresh sees either no refresh (0 µJ) or one stale
  // tick (a whole refresh period's energy, most of it drawn before the serve began). Neither is
  // a reading of the serve: the figure is the caller's estimate, which is also what a grant is
  // debited, never 0 and never the tick.
  @Test
  void serveShorterThanTheRefresh_betweenTicksOrAcrossOne_isTheEstimateNotAReading()
      throws CounterException {
    TimedCounter gpu = new TimedCounter(GPU0, clock, 100, 300_000, true); // 300 W, 100 ms
    CounterMeter meter = meter(gpu);
    meter.probeNow();
    assertThat(meter.liveDomains()).containsExactly(GPU0);
    long toNextTick = 100 - (clock.nanoTime() / 1_000_000 % 100);
    clock.advanceMillis(toNextTick + 10); // 10 ms after a refresh
    long before = gpu.readTotalUj();
    MeterWindow between = meter.open(Set.of(GPU0));
    gpu.work(2_000_000);
    clock.advanceMillis(30); // no refresh inside
    assertThat(gpu.readTotalUj()).as("the counter did not move").isEqualTo(before);
    assertThat(between.close(2_500_000)).isEqualTo(Energy.estimated(2_500_000));
    clock.advanceMillis(50); // 10 ms before the next refresh
    MeterWindow acrossOne = meter.open(Set.of(GPU0));
    gpu.work(2_000_000);
    clock.advanceMillis(30); // one refresh inside: 100 ms of energy for a 30 ms serve
    assertThat(acrossOne.close(2_500_000)).isEqualTo(Energy.estimated(2_500_000));
    assertThat(meter.liveDomains()).as("neither is a stall").containsExactly(GPU0);
  }

  // Item 9: with one 20 ms policy for every counter, one refreshed every 25 ms or slower could
  // not be proven live (at 30 ms, one sample interval in three sees nothing); NVML has its own
  // cadence.
  @Test
  void counterRefreshedEvery30ms_isLumpyAtTheStandardCadence_andLiveAtNvmlCadence() {
    TimedCounter standard = new TimedCounter(GPU0, clock, 30, 30_000, false);
    assertThat(meter(standard).probeNow().getFirst().issue()).contains(CounterIssue.LUMPY);
    TimedCounter nvml = new TimedCounter(GPU0, clock, 30, 30_000, true);
    CounterMeter meter = meter(nvml);
    assertThat(meter.probeNow().getFirst().state()).isEqualTo(CounterState.LIVE);
    assertThat(meter.counters().getFirst().detail()).contains("updates at least every");
  }

  @Test
  void probe_learnsTheUpdatePeriod() {
    TimedCounter gpu = new TimedCounter(GPU0, clock, 25, 30_000, true);
    DomainLedger ledger = new DomainLedger(gpu, LivenessPolicy.nvml(), clock);
    LivenessVerdict v = new LivenessProbe(clock).probe(List.of(ledger)).getFirst();
    assertThat(v.isLive()).isTrue();
    // Polled every 2 ms: the longest gap between two refreshes seen is 25 ms, to a poll.
    assertThat(v.updatePeriodNanos()).isBetween(25_000_000L, 27_000_000L);
  }

  // Item 10: close released the counters while the re-probe thread was still probing them.
  @Test
  void close_waitsForARunningProbeBeforeReleasing() throws Exception {
    TimedCounter cpu = TimedCounter.rapl(CPU0, clock);
    CounterMeter meter = meter(cpu);
    CountDownLatch inProbe = new CountDownLatch(1);
    CountDownLatch proceed = new CountDownLatch(1);
    AtomicReference<String> readAfterRelease = new AtomicReference<>();
    cpu.onRead(
        () -> {
          if (cpu.released) {
            readAfterRelease.compareAndSet(null, "a probe read a released counter");
          }
        });
    // The probe's burn moves the clock; block it there, between two reads.
    clock.onAdvance(
        nanos -> {
          if (inProbe.getCount() > 0) {
            inProbe.countDown();
            try {
              proceed.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          }
        });
    Thread prober = Thread.ofPlatform().start(meter::probeNow);
    assertThat(inProbe.await(10, TimeUnit.SECONDS)).isTrue();
    Thread closer = Thread.ofPlatform().start(meter::close);
    closer.join(300);
    assertThat(cpu.released).as("released while a probe was running").isFalse();
    assertThat(closer.isAlive()).as("close waits for the probe").isTrue();
    proceed.countDown();
    closer.join(10_000);
    prober.join(10_000);
    assertThat(closer.isAlive()).isFalse();
    assertThat(cpu.released).isTrue();
    assertThat(readAfterRelease.get()).isNull();
  }

  @Test
  void close_releasesEveryCounterEvenWhenOneReleaseThrows() {
    TimedCounter cpu = TimedCounter.rapl(CPU0, clock);
    EnergyChannel throwing =
        new EnergyChannel() {
          @Override
          public String name() {
            return "throwing";
          }

          @Override
          public EnergyDomain domain() {
            return DRAM0;
          }

          @Override
          public long readTotalUj() {
            return 0;
          }

          @Override
          public void release() {
            throw new IllegalStateException("arena in use");
          }
        };
    CounterMeter meter = meter(throwing, cpu);
    meter.close();
    assertThat(cpu.released).isTrue();
  }
}
