package org.meshjava.energy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.meshjava.core.Energy;
import org.meshjava.core.EnergyDomain;
import org.meshjava.core.HostPackages;
import org.meshjava.core.Provenance;
import org.meshjava.energy.FakeNvml.DiscoveryCall;

/**
 * NVML through FFM against a fake {@code libnvidia-ml.so.1} compiled from C by the test: the meter
 * binds it exactly as it binds the real library, by path.
 */
class NvmlMeterTest {
  private static final EnergyDomain GPU0 = EnergyDomain.gpu(0);
  private static final EnergyDomain GPU1 = EnergyDomain.gpu(1);

  private final FakeClock clock = new FakeClock();
  private final List<Runnable> reprobes = new ArrayList<>();
  private Path library;

  @BeforeEach
  void stageFakeLibrary() {
    library = FakeNvml.library();
    FakeNvml.reset();
  }

  /** NVML's cadence without polls between samples, so the fake's reads are easy to count. */
  private static final LivenessPolicy UNPOLLED =
      new LivenessPolicy(Duration.ofMillis(150), Duration.ofMillis(1_500), Duration.ofMillis(150));

  private static final GpuVisibility PCI_ORDER =
      new GpuVisibility(Optional.empty(), Optional.of("PCI_BUS_ID"));

  private MeterDiscovery discover() {
    return discover(GpuVisibility.all(), LivenessPolicy.nvml());
  }

  private MeterDiscovery discover(GpuVisibility visibility, LivenessPolicy policy) {
    return discover(
        DiscoveryOptions.defaults()
            .withoutRapl()
            .withoutIoReport()
            .withNvmlLibrary(library.toString())
            .withNvmlLiveness(policy)
            .withGpuVisibility(visibility));
  }

  /** Discovery as {@code options} say, on the fake clock. */
  private MeterDiscovery discover(DiscoveryOptions options) {
    return MeterDiscovery.discover(options, clock, reprobes::add, SysfsReader.FILES, "Linux");
  }

  private static String uuidName(int device) {
    return "nvml:GPU-" + String.format("%08x", device) + "-0000-0000-0000-000000000000";
  }

  @Test
  void discover_whenCounterAdvances_isLiveAndGradesAGpuOnlyServeHwShunt() {
    FakeNvml.script(0, 1_000, 0, 1);
    FakeNvml.draw(0, 300_000, 20_000_000L, clock); // 300 W, refreshed every 20 ms: 6 J each
    MeterDiscovery found = clock.watch(discover());
    CounterMeter meter = (CounterMeter) found.meter();
    assertThat(meter.liveDomains()).containsExactly(GPU0);
    MeterWindow w = meter.open(Set.of(GPU0));
    clock.advanceMillis(300); // fifteen refreshes, past the ten periods of 20 ms a reading needs
    Energy e = w.close(10);
    assertThat(e).isEqualTo(Energy.measured(90_000_000, 10)); // 300 W for 300 ms: 90 J in µJ
    meter.close();
    assertThat(FakeNvml.shutdownCalls()).as("nvmlShutdown on close").isEqualTo(1);
  }

  /**
   * Regression (§3.3): a window opened on a live GPU counter alone was graded {@code HwShunt},
   * though the serve's own thread ran on a CPU package no counter read (the steward added the
   * host's packages; a caller opening windows itself did not). The meter covers the host's packages
   * itself now, so the GPU's reading alone is the estimate.
   */
  @Test
  void gpuOnlyWindow_onAHostWhosePackageNoCounterReads_isNotHwShunt() {
    FakeNvml.script(0, 1_000, 0, 1);
    FakeNvml.draw(0, 300_000, 20_000_000L, clock);
    MeterDiscovery found =
        clock.watch(
            discover(
                DiscoveryOptions.defaults()
                    .withoutRapl()
                    .withoutIoReport()
                    .withNvmlLibrary(library.toString())
                    .withGpuVisibility(GpuVisibility.all())
                    .withHostPackages(new HostPackages(Set.of(EnergyDomain.cpuPackage(0)), true))));
    CounterMeter meter = (CounterMeter) found.meter();
    assertThat(meter.liveDomains()).containsExactly(GPU0);
    MeterWindow w = meter.open(Set.of(GPU0));
    clock.advanceMillis(300); // as a reading needs, above
    assertThat(w.close(10)).isEqualTo(Energy.estimated(10));
    meter.close();
  }

  /**
   * A counter meter's {@code openServe} covers the host packages its discovery's options name, not
   * this process's ({@link HostPackages#ofThisProcess()}, which the interface's default adds): on a
   * machine given as one board and no CPU package (a container told its host's packages, here
   * none), the board's live counter is the serve's whole reading. Were the default used, this
   * process's package 0, which no counter here reads, would make it the estimate.
   */
  @Test
  void openServe_coversTheHostPackagesTheOptionsName_notThisProcesses() {
    FakeNvml.script(0, 1_000, 0, 1);
    FakeNvml.draw(0, 300_000, 20_000_000L, clock);
    MeterDiscovery found =
        clock.watch(
            discover(
                DiscoveryOptions.defaults()
                    .withoutRapl()
                    .withoutIoReport()
                    .withNvmlLibrary(library.toString())
                    .withGpuVisibility(GpuVisibility.all())
                    .withHostPackages(new HostPackages(Set.of(), true))));
    CounterMeter meter = (CounterMeter) found.meter();
    assertThat(meter.liveDomains()).containsExactly(GPU0);
    MeterWindow w = meter.openServe(Set.of(GPU0));
    clock.advanceMillis(300); // fifteen refreshes of 20 ms, as above
    assertThat(w.close(10)).isEqualTo(Energy.measured(90_000_000, 10));
    meter.close();
  }

  @Test
  void summary_ofALiveBoard_namesTheMeterAndTheDomainsItGrades() {
    FakeNvml.script(0, 1_000, 0, 1);
    FakeNvml.draw(0, 300_000, 20_000_000L, clock);
    MeterDiscovery found = clock.watch(discover());
    CounterMeter meter = (CounterMeter) found.meter();
    assertThat(MeterDiscovery.summary(meter, found.counters()))
        .isEqualTo(
            "energy meter "
                + meter.name()
                + " live on "
                + meter.liveDomains()
                + ": a serve on live domains only is graded HwShunt (ModelBased when it overlaps"
                + " another serve), any other Estimator");
    meter.close();
  }

  @Test
  void discover_whenCounterFrozen_fallsBackSayingFrozen() {
    FakeNvml.script(0, 1_000, 3, 0);
    MeterDiscovery found = discover();
    assertThat(found.meter()).isInstanceOf(EstimatorMeter.class);
    assertThat(found.counters())
        .singleElement()
        .satisfies(
            s -> {
              assertThat(s.counter()).isEqualTo(uuidName(0));
              assertThat(s.issue()).contains(CounterIssue.FROZEN);
            });
    assertThat(FakeNvml.shutdownCalls()).as("unused NVML is shut down").isEqualTo(1);
  }

  @Test
  void discover_whenCounterAdvancesOnlyEveryThirdRead_isLumpy() {
    FakeNvml.script(0, 0, 5, 3);
    MeterDiscovery found = discover(GpuVisibility.all(), UNPOLLED);
    assertThat(found.meter()).isInstanceOf(EstimatorMeter.class);
    assertThat(found.counters().getFirst().issue()).contains(CounterIssue.LUMPY);
  }

  @Test
  void window_whenCounterWrapsPast2To64_measuresTheTrueDelta() {
    // 300 W over fake time, refreshed every 20 ms, from 756 J short of 2^64 mJ: the counter wraps
    // 2.52 s after the board starts drawing, inside the first window (discovery's probe and settle
    // take about 1.5 s), and the window's two reads fall either side of the wrap.
    long toWrapMj = 300 * 2_520;
    FakeNvml.script(0, -toWrapMj, 0, 1);
    long drawFrom = clock.nanoTime();
    FakeNvml.draw(0, 300_000, 20_000_000L, clock);
    CounterMeter meter = (CounterMeter) clock.watch(discover()).meter();
    long openAt = clock.nanoTime() - drawFrom;
    assertThat(openAt)
        .as("the wrap at 2.52 s falls inside the window")
        .isBetween(520_000_000L, 2_519_000_000L);
    MeterWindow w = meter.open(Set.of(GPU0));
    clock.advanceMillis(2_000);
    assertThat(w.close(1)).isEqualTo(Energy.measured(600_000_000, 1)); // 300 W for 2 s: 600 J
    clock.advanceMillis(150); // an update period: w's serve is published (BackToBackWindowTest)
    MeterWindow next = meter.open(Set.of(GPU0));
    clock.advanceMillis(2_000);
    assertThat(next.close(1)).isEqualTo(Energy.measured(600_000_000, 1));
    meter.close();
  }

  @Test
  void discover_whenInitFails_surfacesNvmlErrorString() {
    FakeNvml.setInitError(9);
    MeterDiscovery found = discover();
    assertThat(found.meter()).isInstanceOf(EstimatorMeter.class);
    assertThat(found.counters())
        .singleElement()
        .satisfies(
            s -> {
              assertThat(s.state()).isEqualTo(CounterState.UNAVAILABLE);
              assertThat(s.issue()).contains(CounterIssue.NATIVE_ERROR);
              assertThat(s.detail()).contains("Driver Not Loaded").contains("9");
            });
  }

  @Test
  void discover_whenLibraryPathMissing_isLibraryMissing() {
    DiscoveryOptions options =
        DiscoveryOptions.defaults()
            .withoutRapl()
            .withoutIoReport()
            .withNvmlLibrary(
                library.resolveSibling("absent").resolve("libnvidia-ml.so.1").toString());
    MeterDiscovery found = MeterDiscovery.discover(options);
    assertThat(found.meter()).isInstanceOf(EstimatorMeter.class);
    assertThat(found.counters().getFirst().issue()).contains(CounterIssue.LIBRARY_MISSING);
  }

  @Test
  void discover_whenOneGpuLacksAnEnergyCounter_keepsTheOther() {
    FakeNvml.setDeviceCount(2);
    FakeNvml.setEnergyError(0, 3);
    FakeNvml.script(1, 0, 2, 1);
    MeterDiscovery found = discover(PCI_ORDER, LivenessPolicy.nvml());
    CounterMeter meter = (CounterMeter) found.meter();
    assertThat(meter.liveDomains()).containsExactly(GPU1);
    assertThat(found.counters())
        .anySatisfy(
            s -> {
              assertThat(s.counter()).isEqualTo(uuidName(0));
              assertThat(s.issue()).contains(CounterIssue.NATIVE_ERROR);
              assertThat(s.detail()).contains("Not Supported");
            });
    meter.close();
  }

  @Test
  void close_whenGpuCounterLiveButHostCpuHasNone_isNotHwShunt() {
    CounterMeter meter = (CounterMeter) discover().meter();
    MeterWindow w = meter.open(Set.of(EnergyDomain.cpuPackage(0), GPU0));
    assertThat(w.close(55)).isEqualTo(Energy.estimated(55));
    meter.close();
  }

  @Test
  void close_whenGpuStartsFailingAfterDiscovery_isEstimatorAndSaysWhy() {
    CounterMeter meter = (CounterMeter) discover().meter();
    MeterWindow w = meter.open(Set.of(GPU0));
    clock.advanceMillis(50);
    FakeNvml.setEnergyError(0, 15);
    assertThat(w.close(4).provenance()).isEqualTo(Provenance.Estimator);
    assertThat(meter.counters().getFirst().issue()).contains(CounterIssue.READ_FAILED);
    assertThat(meter.counters().getFirst().detail()).contains("GPU is lost");
    meter.close();
  }

  // A board off the bus (GPU_IS_LOST) is not re-discovered (NVML would have to be shut down and
  // initialised again under every other board's handles): its handle is kept and re-probed, so a
  // board that answers on it again (its counter restarted, as after a reset) comes back without a
  // restart, and no window meanwhile is graded from it, the one across its return included.
  @Test
  void aLostBoardThatAnswersAgain_isEstimatorMeanwhile_andMeasuredAfterItsReprobe() {
    FakeNvml.script(0, 50_000_000, 0, 1);
    FakeNvml.draw(0, 300_000, 20_000_000L, clock); // 300 W, refreshed every 20 ms
    CounterMeter meter = (CounterMeter) clock.watch(discover()).meter();
    MeterWindow w = meter.open(Set.of(GPU0));
    clock.advanceMillis(300); // long enough to be a reading, but for what follows
    FakeNvml.setEnergyError(0, GPU_IS_LOST);
    assertThat(w.close(4)).isEqualTo(Energy.estimated(4));
    reprobes.removeFirst().run();
    assertThat(meter.counters().getFirst().issue()).contains(CounterIssue.READ_FAILED);

    MeterWindow across = meter.open(Set.of(GPU0));
    clock.advanceMillis(150);
    FakeNvml.setEnergyError(0, 0);
    FakeNvml.script(0, 7, 0, 1); // the counter restarted near 0
    clock.advanceMillis(150);
    assertThat(across.close(4)).isEqualTo(Energy.estimated(4));

    assertThat(reprobes).as("a failed re-probe waits for the periodic one").isEmpty();
    clock.advanceMillis(600_000); // which looks again at every counter not live
    meter.open(Set.of(GPU0)).abandon();
    measuredAgainAfterTheReprobe(meter);
  }

  /** Runs the one re-probe a demotion scheduled; the next window reads the counter again. */
  private void measuredAgainAfterTheReprobe(CounterMeter meter) {
    assertThat(reprobes).hasSize(1);
    reprobes.removeFirst().run();
    assertThat(meter.liveDomains()).containsExactly(GPU0);
    MeterWindow after = meter.open(Set.of(GPU0));
    clock.advanceMillis(300);
    assertThat(after.close(4))
        .as("300 W for 300 ms, in µJ")
        .isEqualTo(Energy.measured(90_000_000, 4));
    meter.close();
  }

  // A driver reload restarts NVML's counter near 0 (mJ since driver load); the window across it
  // is no reading, the next read counts from the new value, and a re-probe brings it back.
  @Test
  void close_whenDriverReloadRestartsTheCounterMidServe_isEstimatorThenMeasuredAfterReprobe() {
    FakeNvml.script(0, 50_000_000, 0, 1);
    FakeNvml.draw(0, 300_000, 20_000_000L, clock); // 300 W, refreshed every 20 ms
    CounterMeter meter = (CounterMeter) clock.watch(discover()).meter();
    MeterWindow w = meter.open(Set.of(GPU0));
    clock.advanceMillis(300); // long enough to be a reading, but for what follows
    FakeNvml.script(0, 7, 0, 1);
    assertThat(w.close(4)).isEqualTo(Energy.estimated(4));
    assertThat(meter.counters().getFirst().issue()).contains(CounterIssue.COUNTER_RESET);
    measuredAgainAfterTheReprobe(meter);
  }

  // A counter that leaps a gigajoule between two reads 50 ms apart did not measure a serve: no
  // board draws 20 MW. The window is no reading, and the next read counts from the new value.
  @Test
  void close_whenCounterLeapsFurtherThanABoardCanDraw_isEstimatorThenMeasuredAfterReprobe() {
    FakeNvml.script(0, 50_000_000, 0, 1);
    FakeNvml.draw(0, 300_000, 20_000_000L, clock); // 300 W, refreshed every 20 ms
    CounterMeter meter = (CounterMeter) clock.watch(discover()).meter();
    MeterWindow w = meter.open(Set.of(GPU0));
    clock.advanceMillis(300); // long enough to be a reading, but for what follows
    FakeNvml.script(0, 1_000_000_000_000L, 0, 1);
    assertThat(w.close(4)).isEqualTo(Energy.estimated(4));
    assertThat(meter.counters().getFirst().issue()).contains(CounterIssue.COUNTER_RESET);
    measuredAgainAfterTheReprobe(meter);
  }

  @Test
  void probe_inRealTimeOnTheFakeLibrary_provesTheCounterLive() {
    LivenessPolicy quick = new LivenessPolicy(Duration.ofMillis(20), Duration.ofMillis(300));
    DiscoveryOptions options =
        DiscoveryOptions.defaults()
            .withoutRapl()
            .withoutIoReport()
            .withNvmlLibrary(library.toString())
            .withGpuVisibility(GpuVisibility.all())
            .withNvmlLiveness(quick)
            // A machine of the fake board alone, no CPU package beside it: this host's packages
            // have no counter here, and would make the GPU's window the estimate (§3.3).
            .withHostPackages(new HostPackages(Set.of(), true));
    // A real-time probe on a heavily loaded machine can miss sample intervals (the thread is not
    // scheduled), which the liveness rule rightly refuses; allow a few attempts.
    MeterDiscovery found = null;
    for (int attempt = 0; attempt < 3 && (found == null || !found.hardwareGraded()); attempt++) {
      long start = System.nanoTime();
      found = MeterDiscovery.discover(options);
      long tookMs = (System.nanoTime() - start) / 1_000_000;
      // The probe itself is 300 ms; the upper bound leaves room for a loaded build machine.
      assertThat(tookMs).isBetween(300L, 5_000L);
    }
    assertThat(found.hardwareGraded()).as(found.counters().toString()).isTrue();
    CounterMeter meter = (CounterMeter) found.meter();
    MeterWindow w = meter.open(Set.of(GPU0));
    // Ten of its update periods and more: the fake changes at every read, but on a loaded machine
    // the probe's polls, and so the learnt period, can stretch.
    sleep(Math.max(100, 12 * meter.updatePeriodNanos(GPU0) / 1_000_000));
    assertThat(w.close(1).provenance()).isEqualTo(Provenance.HwShunt);
    meter.close();
  }

  private static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  /**
   * A board whose first read NVML answers with a condition of the moment (27 is {@code
   * NVML_ERROR_NOT_READY}, which an H100 answers while its driver starts; 999 {@code UNKNOWN}; 10
   * {@code TIMEOUT}; 19 {@code IN_USE}) is kept though it is the only counter: not live, graded
   * {@code Estimator}, and brought in by the periodic re-probe once it answers.
   */
  @Test
  void discover_whenTheOnlyBoardsFirstReadFailsForTheMoment_keepsItForTheReprobe() {
    for (int code : new int[] {27, 999, 10, 19}) {
      FakeNvml.reset();
      reprobes.clear();
      FakeNvml.script(0, 1_000, 0, 1);
      FakeNvml.draw(0, 300_000, 20_000_000L, clock); // 300 W, refreshed every 20 ms
      FakeNvml.setEnergyError(0, code);
      MeterDiscovery found = clock.watch(discover());
      assertThat(found.meter()).as("code %d", code).isInstanceOf(CounterMeter.class);
      assertThat(found.hardwareGraded()).isFalse();
      assertThat(MeterDiscovery.summary(found.meter(), found.counters()))
          .startsWith("no energy counter proved live yet, so figures are graded Estimator");
      CounterMeter meter = (CounterMeter) found.meter();
      assertThat(meter.counters())
          .singleElement()
          .satisfies(
              s -> {
                assertThat(s.issue()).contains(CounterIssue.READ_FAILED);
                assertThat(s.detail()).contains("(NVML error " + code + ")");
              });
      assertThat(meter.open(Set.of(GPU0)).close(4)).isEqualTo(Energy.estimated(4));

      FakeNvml.setEnergyError(0, 0);
      clock.advanceMillis(Duration.ofMinutes(10).toMillis());
      meter.open(Set.of(GPU0)).abandon(); // the first serve after reprobeEvery schedules it
      measuredAgainAfterTheReprobe(meter);
    }
  }

  /**
   * What nvml.h documents as the board's own lack ({@code NOT_SUPPORTED}, 3: no energy readings
   * before Volta), a board off the bus ({@code GPU_IS_LOST}, 15) or a setup a retry does not change
   * ({@code NO_PERMISSION}, 4) is refused at discovery, not re-probed for the process's life.
   */
  @Test
  void discover_whenTheFirstReadFailsForGood_refusesTheBoard() {
    for (int code : new int[] {3, 15, 4}) {
      FakeNvml.reset();
      FakeNvml.setEnergyError(0, code);
      MeterDiscovery found = discover();
      assertThat(found.meter()).as("code %d", code).isInstanceOf(EstimatorMeter.class);
      assertThat(found.counters())
          .singleElement()
          .satisfies(s -> assertThat(s.issue()).contains(CounterIssue.NATIVE_ERROR));
    }
  }

  @Test
  void discover_whenNvmlReportsNoGpus_saysSo() {
    FakeNvml.setDeviceCount(0);
    MeterDiscovery found = discover();
    assertThat(found.meter()).isInstanceOf(EstimatorMeter.class);
    assertThat(found.counters())
        .extracting(CounterStatus::issue, CounterStatus::detail)
        .containsExactly(tuple(Optional.of(CounterIssue.NOT_PRESENT), "NVML reports no GPUs"));
  }

  @Test
  void discover_whenEveryGpusFirstReadFails_shutsNvmlDown() {
    // The library is unloaded only once no channel over it is left: a channel dropped after a
    // failed first read has to let it go too.
    FakeNvml.setEnergyError(0, 3);
    MeterDiscovery found = discover();
    assertThat(found.meter()).isInstanceOf(EstimatorMeter.class);
    assertThat(FakeNvml.shutdownCalls()).as("unused NVML is shut down").isEqualTo(1);
  }

  @Test
  void gpuDomains_whenTheOnlyBoardIsNotTheUuidNamed_isNotBound() {
    FakeNvml.setUuid(0, "GPU-aa11-0000-0000-0000-000000000000");
    MeterDiscovery found =
        discover(
            new GpuVisibility(Optional.of("GPU-ff99"), Optional.empty()), LivenessPolicy.nvml());
    assertThat(found.meter()).isInstanceOf(EstimatorMeter.class);
    assertThat(found.counters())
        .anySatisfy(s -> assertThat(s.detail()).isEqualTo("no board has UUID GPU-ff99"));
  }

  @Test
  void gpuDomains_whenAUuidPrefixNamesSeveralBoards_bindNone() {
    fourBoards();
    MeterDiscovery found =
        discover(new GpuVisibility(Optional.of("GPU-"), Optional.empty()), LivenessPolicy.nvml());
    assertThat(found.meter()).isInstanceOf(EstimatorMeter.class);
    assertThat(found.counters())
        .anySatisfy(s -> assertThat(s.detail()).isEqualTo("UUID prefix GPU- names 4 boards"));
  }

  @Test
  void gpuDomains_stopAtAnOrdinalPastTheLastBoard_orAnEntryThatIsNoDevice_asCudaDoes() {
    // CUDA ignores CUDA_VISIBLE_DEVICES from its first invalid entry on: board "1" after it is
    // not a GPU the engine sees, so it must not be metered as one.
    for (String list : List.of("0,4,1", "0,-1,1", "0,gpu1,1")) {
      FakeNvml.reset();
      fourBoards();
      MeterDiscovery found =
          clock.watch(
              discover(
                  new GpuVisibility(Optional.of(list), Optional.of("PCI_BUS_ID")),
                  LivenessPolicy.nvml()));
      CounterMeter meter = (CounterMeter) found.meter();
      assertThat(meter.liveDomains()).as(list).containsExactly(GPU0);
      assertThat(oneReadOn(meter, GPU0)).as("first on the bus: board 1").isEqualTo(60_000_000);
      meter.close();
    }
  }

  /** Four boards whose NVML order, PCI order and UUIDs all differ. */
  private void fourBoards() {
    FakeNvml.setDeviceCount(4);
    String[] uuids = {"GPU-aa11", "GPU-bb22", "GPU-cc33", "GPU-dd44"};
    int[] buses = {0x81, 0x01, 0x41, 0x21}; // PCI order: board 1, 3, 2, 0
    for (int i = 0; i < 4; i++) {
      FakeNvml.setUuid(i, uuids[i] + "-0000-0000-0000-000000000000");
      FakeNvml.setPciBus(i, buses[i]);
      FakeNvml.script(i, 0, 0, 1);
      FakeNvml.draw(i, 100_000L * (i + 1), 20_000_000L, clock); // board i draws (i+1) * 100 W
    }
  }

  /** What one window of 300 ms on {@code domain} measures: 30 J per 100 W of its board. */
  private long oneReadOn(CounterMeter meter, EnergyDomain domain) {
    MeterWindow w = meter.open(Set.of(domain));
    clock.advanceMillis(300);
    Energy e = w.close(1);
    assertThat(e.provenance()).isEqualTo(Provenance.HwShunt);
    return e.measuredUj().getAsLong();
  }

  @Test
  void gpuDomains_whenVisibleDevicesNameUuids_areBoundToThoseBoards() {
    fourBoards();
    MeterDiscovery found =
        clock.watch(
            discover(
                new GpuVisibility(Optional.of("GPU-cc33,GPU-aa11"), Optional.empty()),
                LivenessPolicy.nvml()));
    CounterMeter meter = (CounterMeter) found.meter();
    assertThat(meter.liveDomains()).containsExactlyInAnyOrder(GPU0, GPU1);
    assertThat(oneReadOn(meter, GPU0)).as("gpu:0 is board 2").isEqualTo(90_000_000);
    assertThat(oneReadOn(meter, GPU1)).as("gpu:1 is board 0").isEqualTo(30_000_000);
    assertThat(found.counters())
        .filteredOn(s -> s.issue().equals(Optional.of(CounterIssue.NOT_A_DOMAIN)))
        .extracting(CounterStatus::counter)
        .containsExactlyInAnyOrder(
            "nvml:GPU-bb22-0000-0000-0000-000000000000",
            "nvml:GPU-dd44-0000-0000-0000-000000000000");
    meter.close();
  }

  @Test
  void gpuDomains_whenOrdinalsUnderPciBusOrder_areBoundInBusOrderNotNvmlOrder() {
    fourBoards();
    MeterDiscovery found =
        clock.watch(
            discover(
                new GpuVisibility(Optional.of("2,0"), Optional.of("PCI_BUS_ID")),
                LivenessPolicy.nvml()));
    CounterMeter meter = (CounterMeter) found.meter();
    assertThat(oneReadOn(meter, GPU0)).as("third on the bus: board 2").isEqualTo(90_000_000);
    assertThat(oneReadOn(meter, GPU1)).as("first on the bus: board 1").isEqualTo(60_000_000);
    meter.close();
  }

  @Test
  void gpuDomains_whenOrdinalsInCudaDefaultOrderOnSeveralBoards_areNotBound() {
    fourBoards();
    MeterDiscovery found = discover(GpuVisibility.all(), LivenessPolicy.nvml());
    assertThat(found.meter()).isInstanceOf(EstimatorMeter.class);
    assertThat(found.counters())
        .anySatisfy(s -> assertThat(s.detail()).contains("CUDA_DEVICE_ORDER=PCI_BUS_ID"));
  }

  @Test
  void gpuDomains_whenBoardInMigModeOrDeviceIsAMigInstance_areRefusedAsShared() {
    fourBoards();
    FakeNvml.setMigMode(2, 1);
    MeterDiscovery found =
        discover(
            new GpuVisibility(Optional.of("GPU-cc33,MIG-5e2f,GPU-dd44"), Optional.empty()),
            LivenessPolicy.nvml());
    CounterMeter meter = (CounterMeter) found.meter();
    assertThat(meter.liveDomains()).containsExactly(EnergyDomain.gpu(2));
    assertThat(found.counters())
        .filteredOn(s -> s.issue().equals(Optional.of(CounterIssue.SHARED_BOARD)))
        .extracting(CounterStatus::domain)
        .containsExactlyInAnyOrder(Optional.of(GPU0), Optional.of(GPU1));
    meter.close();
  }

  // A fixed 2 kW bound held today's boards (limits of 700 W to 1.4 kW) with room, but refused as
  // resets the draw of a board whose limit may be set near or past it: such a board is held to
  // twice its settable limit, the rule a RAPL zone's published limits follow (SPEC.md 40 §3).
  @Test
  void aBoardWhoseLimitMayBeSetPast2Kilowatts_drawingIt_isCounted_notCalledAReset() {
    FakeNvml.script(0, 1_000, 0, 1);
    FakeNvml.draw(0, 300_000, 20_000_000L, clock); // 300 W, refreshed every 20 ms
    FakeNvml.setPowerLimitMax(0, 2_300_000); // 2.3 kW
    assertA2300WattDrawIsCounted();
  }

  /** A board held to its own 4.6 kW: 23 kJ over a 10 s window is a reading, not a reset. */
  private void assertA2300WattDrawIsCounted() {
    CounterMeter meter = (CounterMeter) clock.watch(discover()).meter();
    assertThat(meter.liveDomains()).containsExactly(GPU0);
    clock.advanceMillis(150);
    MeterWindow w = meter.open(Set.of(GPU0));
    FakeNvml.draw(0, 2_300_000, 20_000_000L, clock); // 2.3 kW: 23 kJ over the 10 s window
    clock.advanceMillis(10_000);
    Energy e = w.close(1);

    assertThat(meter.counters().getFirst().issue()).as("no reset").isEmpty();
    assertThat(e).isEqualTo(Energy.measured(23_000_000_000L, 1));
    meter.close();
  }

  @Test
  void aBoardPublishingNoLimit_isStillHeldToTwoKilowatts() {
    FakeNvml.script(0, 1_000, 0, 1);
    FakeNvml.draw(0, 300_000, 20_000_000L, clock); // 300 W, refreshed every 20 ms
    assertA2300WattDrawIsAReset();
  }

  // Regression: nvml.h's NVML_VALUE_NOT_AVAILABLE (all ones) answered as the settable limit was
  // read as 4.29 MW, so the board was held to 8.6 MW and the bound refused almost nothing.
  @Test
  void aBoardAnsweringTheNotAvailableValueAsItsLimit_isHeldToTwoKilowatts() {
    FakeNvml.script(0, 1_000, 0, 1);
    FakeNvml.draw(0, 300_000, 20_000_000L, clock); // 300 W, refreshed every 20 ms
    FakeNvml.setPowerLimitMax(0, -1); // 0xFFFFFFFF mW
    assertA2300WattDrawIsAReset();
  }

  /** A board held to 2 kW: 23 kJ over a 10 s window (2.3 kW) is more than it can draw, a reset. */
  private void assertA2300WattDrawIsAReset() {
    CounterMeter meter = (CounterMeter) clock.watch(discover()).meter();
    clock.advanceMillis(150);
    MeterWindow w = meter.open(Set.of(GPU0));
    FakeNvml.draw(0, 2_300_000, 20_000_000L, clock); // past the bound for 10 s
    clock.advanceMillis(10_000);

    assertThat(w.close(1)).isEqualTo(Energy.estimated(1));
    assertThat(meter.counters().getFirst().issue()).contains(CounterIssue.COUNTER_RESET);
    meter.close();
  }

  // The calls that find the boards (count, handle by index, UUID) can answer a condition of the
  // moment too. Before a board is found there is no counter to keep for the meter's re-probes, so
  // one NOT_READY at discovery lost NVML for the life of the process: such failures are tried again
  // within a bound, and permanent ones are not.

  // NVML error codes (nvml.h) for the discovery cases below.
  private static final int TIMEOUT = 10;
  private static final int NOT_SUPPORTED = 3;
  private static final int NO_PERMISSION = 4;
  private static final int DRIVER_NOT_LOADED = 9;
  private static final int GPU_IS_LOST = 15;
  private static final int NOT_READY = 27;
  private static final int UNKNOWN = 999;

  /** Asserts the board was found, proven live by its probe, and grades a lone window a reading. */
  private void assertMetered(MeterDiscovery found) {
    clock.watch(found);
    assertThat(found.meter()).isInstanceOf(CounterMeter.class);
    CounterMeter meter = (CounterMeter) found.meter();
    assertThat(meter.liveDomains()).containsExactly(GPU0);
    clock.advanceMillis(150);
    MeterWindow w = meter.open(Set.of(GPU0));
    clock.advanceMillis(2_000);
    Energy e = w.close(1);
    assertThat(e.provenance()).isEqualTo(Provenance.HwShunt);
    meter.close();
  }

  @Test
  void enumeration_aDeviceCountNotReadyAtStart_isTriedAgain_andTheBoardIsMetered() {
    FakeNvml.script(0, 1_000, 0, 1);
    FakeNvml.draw(0, 300_000, 20_000_000L, clock); // 300 W, refreshed every 20 ms
    FakeNvml.failCalls(DiscoveryCall.COUNT, NOT_READY, 2);
    assertMetered(discover());
  }

  @Test
  void enumeration_aHandleTimeoutAndAnUnknownUuidError_areTriedAgain_andTheBoardIsMetered() {
    FakeNvml.script(0, 1_000, 0, 1);
    FakeNvml.draw(0, 300_000, 20_000_000L, clock); // 300 W, refreshed every 20 ms
    FakeNvml.failCalls(DiscoveryCall.HANDLE, TIMEOUT, 1);
    FakeNvml.failCalls(DiscoveryCall.UUID, UNKNOWN, 2);
    assertMetered(discover());
  }

  /**
   * Asserts a discovery call failing with {@code code} refuses NVML at once, waiting for nothing.
   */
  private void assertRefusedAtOnce(DiscoveryCall call, int code) {
    FakeNvml.failCalls(call, code, 1);
    long start = clock.nanoTime();
    MeterDiscovery found = discover();

    assertThat(found.meter()).isInstanceOf(EstimatorMeter.class);
    assertThat(found.counters())
        .singleElement()
        .satisfies(s -> assertThat(s.issue()).contains(CounterIssue.NATIVE_ERROR));
    assertThat(clock.nanoTime()).as("no wait for a permanent failure").isEqualTo(start);
  }

  @Test
  void enumeration_notSupportedOrALostBoard_isPermanent_andRefusedWithoutWaiting() {
    assertRefusedAtOnce(DiscoveryCall.COUNT, NOT_SUPPORTED);
    FakeNvml.reset();
    assertRefusedAtOnce(DiscoveryCall.UUID, GPU_IS_LOST);
  }

  @Test
  void enumeration_aCountThatNeverAnswers_isGivenUpWithinTheBound_sayingSo() {
    assertGivenUpWithinTheBound(DiscoveryCall.COUNT, "nvmlDeviceGetCount_v2 failed");
  }

  /**
   * Asserts {@code call} answering NOT_READY every time loses NVML once the budget is spent, not
   * later, and says what failed, how long it was tried and that a restart looks again.
   */
  private void assertGivenUpWithinTheBound(DiscoveryCall call, String failure) {
    FakeNvml.failCalls(call, NOT_READY, -1);
    long start = clock.nanoTime();
    MeterDiscovery found = discover();

    assertThat(found.meter()).isInstanceOf(EstimatorMeter.class);
    assertThat(clock.nanoTime() - start).isLessThanOrEqualTo(MomentaryRetry.BUDGET_NANOS);
    assertThat(found.counters())
        .singleElement()
        .satisfies(
            s -> {
              assertThat(s.issue()).contains(CounterIssue.READ_FAILED);
              assertThat(s.detail()).contains(failure).contains("tries over").contains("restarts");
            });
  }

  // nvmlInit_v2 answers UNKNOWN on any unexpected error (nvml.h). Refused on the first, it lost
  // NVML for the life of the process; it is tried again within the budget of the calls after it.
  @Test
  void init_anUnknownErrorAtStart_isTriedAgain_andTheBoardIsMetered() {
    FakeNvml.script(0, 1_000, 0, 1);
    FakeNvml.draw(0, 300_000, 20_000_000L, clock); // 300 W, refreshed every 20 ms
    FakeNvml.failCalls(DiscoveryCall.INIT, UNKNOWN, 2);
    assertMetered(discover());
    assertThat(FakeNvml.shutdownCalls()).as("one shutdown for the one init that held").isEqualTo(1);
  }

  /** nvml.h's other answers to nvmlInit_v2 name a setup that no retry changes. */
  @Test
  void init_driverNotLoadedOrNoPermission_isPermanent_andRefusedWithoutWaiting() {
    for (int code : new int[] {DRIVER_NOT_LOADED, NO_PERMISSION}) {
      FakeNvml.reset();
      assertRefusedAtOnce(DiscoveryCall.INIT, code);
    }
  }

  @Test
  void init_thatNeverAnswers_isGivenUpWithinTheBound_sayingSo() {
    assertGivenUpWithinTheBound(DiscoveryCall.INIT, "nvmlInit_v2 failed");
  }

  // The limit constraints can answer a code of the moment too. Settled at the 2 kW floor on one,
  // a board settable past it had its own draw refused as resets until the process restarted.
  @Test
  void powerLimit_aTimeoutAtStart_isTriedAgain_andTheBoardKeepsItsOwnBound() {
    FakeNvml.script(0, 1_000, 0, 1);
    FakeNvml.draw(0, 300_000, 20_000_000L, clock); // 300 W, refreshed every 20 ms
    FakeNvml.setPowerLimitMax(0, 2_300_000);
    FakeNvml.failCalls(DiscoveryCall.POWER_LIMIT, TIMEOUT, 2);
    assertA2300WattDrawIsCounted();
  }

  /**
   * The power bound is optional, so its retries may not spend the budget a later board's required
   * calls need: with the bound asked for board by board, board 0's bound that never answers spent
   * it all, and board 1's MIG mode, failing three times, was not tried again, losing the board
   * until the process restarted.
   */
  @Test
  void powerLimit_thatNeverAnswers_leavesTheBudgetToTheOtherBoardsRequiredCalls() {
    FakeNvml.setDeviceCount(2);
    FakeNvml.script(0, 1_000, 3, 1);
    FakeNvml.script(1, 1_000, 3, 1);
    // Board 0 cannot do MIG, so its check fails nothing; board 1 can, with MIG off.
    FakeNvml.setMigMode(1, 0);
    FakeNvml.failCalls(DiscoveryCall.POWER_LIMIT, NOT_READY, -1);
    FakeNvml.failCalls(DiscoveryCall.MIG, NOT_READY, 3);
    MeterDiscovery found = discover(PCI_ORDER, LivenessPolicy.nvml());
    assertThat(found.meter()).as("%s", found.counters()).isInstanceOf(CounterMeter.class);
    assertThat(((CounterMeter) found.meter()).liveDomains())
        .as("%s", found.counters())
        .containsExactlyInAnyOrder(GPU0, GPU1);
  }

  /** The figure is optional: without it, within the budget or for good, the board keeps 2 kW. */
  @Test
  void powerLimit_thatNeverAnswers_orIsRefusedForGood_leavesTheBoardMeteredAtTwoKilowatts() {
    for (int[] failure : new int[][] {{NOT_READY, -1}, {NO_PERMISSION, 1}}) {
      FakeNvml.reset();
      FakeNvml.script(0, 1_000, 0, 1);
      FakeNvml.draw(0, 300_000, 20_000_000L, clock); // 300 W, refreshed every 20 ms
      FakeNvml.setPowerLimitMax(0, 2_300_000);
      FakeNvml.failCalls(DiscoveryCall.POWER_LIMIT, failure[0], failure[1]);
      assertA2300WattDrawIsAReset();
    }
  }
}
