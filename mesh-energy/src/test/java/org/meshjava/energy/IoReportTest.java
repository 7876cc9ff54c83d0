package org.meshjava.energy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.Test;
import org.meshjava.core.Energy;
import org.meshjava.core.EnergyDomain;
import org.meshjava.core.Provenance;

/**
 * Apple IOReport's sample-to-reading logic and liveness handling, on recorded-format samples
 * (synthetic; this project has no Apple hardware). The FFM downcalls are not exercised here.
 */
class IoReportTest {

  /** Replays sample deltas from a resource, one per call, looping at the end. */
  static final class Replay implements IoReportSampler {
    private final List<List<IoReportEntry>> deltas;
    private int next;
    boolean released;

    Replay(List<List<IoReportEntry>> deltas) {
      this.deltas = deltas;
    }

    static Replay of(String resource) throws IOException {
      String text;
      try (InputStream in = IoReportTest.class.getResourceAsStream(resource)) {
        text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      }
      List<List<IoReportEntry>> deltas = new ArrayList<>();
      for (String block : text.split("\n--\n")) {
        List<IoReportEntry> entries = new ArrayList<>();
        for (String line : block.split("\n")) {
          if (line.isBlank() || line.startsWith("#")) {
            continue;
          }
          String[] f = line.split("\\|");
          entries.add(new IoReportEntry(f[0], f[1], f[2], Long.parseLong(f[3])));
        }
        deltas.add(entries);
      }
      return new Replay(deltas);
    }

    @Override
    public List<IoReportEntry> sampleDelta() {
      List<IoReportEntry> d = deltas.get(next % deltas.size());
      next++;
      return d;
    }

    @Override
    public void release() {
      released = true;
    }
  }

  /**
   * A session whose CPU rail draws 10 W and whose GPU rail draws {@code gpuWatts}, each delta
   * holding the energy since the last one.
   */
  static IoReportSampler cpuAndGpuRails(FakeClock clock, LongSupplier gpuWatts) {
    long[] lastSample = {clock.nanoTime()};
    return () -> {
      long ms = (clock.nanoTime() - lastSample[0]) / 1_000_000;
      lastSample[0] = clock.nanoTime();
      return List.of(
          new IoReportEntry("Energy Model", "CPU Energy", "mJ", ms * 10),
          new IoReportEntry("Energy Model", "GPU Energy", "mJ", ms * gpuWatts.getAsLong()));
    };
  }

  private static CounterMeter meterOver(IoReportSampler replay, FakeClock clock) {
    return meterOver(replay, clock, Runnable::run);
  }

  /** A meter over {@code replay}'s session whose re-probes run on {@code reprobes}. */
  static CounterMeter meterOver(IoReportSampler replay, FakeClock clock, Executor reprobes) {
    List<EnergyChannel> found = new ArrayList<>();
    List<CounterStatus> refused = new ArrayList<>();
    IoReportDiscovery.adopt(new IoReportSession(replay), replay, found, refused);
    // The replay hands out one recorded delta per read, so the probe reads once per sample.
    LivenessPolicy unpolled =
        new LivenessPolicy(Duration.ofMillis(20), Duration.ofMillis(400), Duration.ofMillis(20));
    return new CounterMeter(
        found, refused, unpolled, Duration.ofMinutes(10), Optional.empty(), clock, reprobes);
  }

  @Test
  void nanojoules_mapsTheCpuRailGpuAndDram_andConvertsUnits() throws Exception {
    Map<EnergyDomain.Kind, Long> nj =
        IoReportEnergyModel.nanojoules(
            List.of(
                new IoReportEntry("Energy Model", "ECPU", "mJ", 5), // part of the CPU rail
                new IoReportEntry("Energy Model", "CPU Energy", "mJ", 12),
                new IoReportEntry("Energy Model", "GPU Energy", "nJ", 7_500),
                new IoReportEntry("Energy Model", "DRAM", "uJ", 40),
                new IoReportEntry("Energy Model", "ANE", "mJ", 99),
                new IoReportEntry("Other", "CPU Energy", "mJ", 1_000)));
    assertThat(nj)
        .containsExactlyInAnyOrderEntriesOf(
            Map.of(
                EnergyDomain.Kind.CPU_PACKAGE, 12_000_000L,
                EnergyDomain.Kind.GPU, 7_500L,
                EnergyDomain.Kind.DRAM, 40_000L));
  }

  @Test
  void nanojoules_sumsTheCpuRailOfEachDie() throws Exception {
    Map<EnergyDomain.Kind, Long> nj =
        IoReportEnergyModel.nanojoules(
            List.of(
                new IoReportEntry("Energy Model", "DIE_0_CPU Energy", "mJ", 3),
                new IoReportEntry("Energy Model", "DIE_1_CPU Energy", "mJ", 4)));
    assertThat(nj).containsEntry(EnergyDomain.Kind.CPU_PACKAGE, 7_000_000L);
  }

  @Test
  void nanojoules_trimsPaddedUnitLabels_andCountsTheGpuSramRailAsGpu() throws Exception {
    Map<EnergyDomain.Kind, Long> nj =
        IoReportEnergyModel.nanojoules(
            List.of(
                new IoReportEntry("Energy Model", "CPU Energy", "mJ  ", 2),
                new IoReportEntry("Energy Model", "GPU Energy", " nJ", 5),
                new IoReportEntry("Energy Model", "GPU SRAM", "nJ", 7)));
    assertThat(nj)
        .containsEntry(EnergyDomain.Kind.CPU_PACKAGE, 2_000_000L)
        .containsEntry(EnergyDomain.Kind.GPU, 12L);
  }

  @Test
  void nanojoules_whenUnitUnknownOrValueNegative_failsTheSample() {
    assertThatThrownBy(
            () ->
                IoReportEnergyModel.nanojoules(
                    List.of(new IoReportEntry("Energy Model", "CPU Energy", "W", 3))))
        .isInstanceOfSatisfying(
            CounterException.class, e -> assertThat(e.issue()).isEqualTo(CounterIssue.READ_FAILED));
    assertThatThrownBy(
            () ->
                IoReportEnergyModel.nanojoules(
                    List.of(new IoReportEntry("Energy Model", "CPU Energy", "mJ", -3))))
        .isInstanceOf(CounterException.class);
  }

  @Test
  void nanojoules_whenTheDiesSumPastALong_failsTheSampleAsARead() {
    long most = Long.MAX_VALUE / 1_000_000;
    assertThatThrownBy(
            () ->
                IoReportEnergyModel.nanojoules(
                    List.of(
                        new IoReportEntry("Energy Model", "DIE_0_CPU Energy", "mJ", most),
                        new IoReportEntry("Energy Model", "DIE_1_CPU Energy", "mJ", most))))
        .isInstanceOfSatisfying(
            CounterException.class,
            e -> {
              assertThat(e.issue()).isEqualTo(CounterIssue.READ_FAILED);
              assertThat(e.getMessage()).contains("CPU_PACKAGE").contains("overflow");
            });
  }

  @Test
  void sampleDeltaBeyondWhatTheRailCanDraw_isNotGradedHwShunt() {
    FakeClock clock = new FakeClock();
    boolean[] garbage = {false};
    IoReportSampler sampler =
        () ->
            List.of(
                new IoReportEntry(
                    "Energy Model", "CPU Energy", "mJ", garbage[0] ? 1_000_000_000L : 100));
    CounterMeter meter = clock.watch(meterOver(sampler, clock));
    meter.probeNow();
    assertThat(meter.liveDomains()).containsExactly(EnergyDomain.cpuPackage(0));
    MeterWindow w = meter.open(Set.of(EnergyDomain.cpuPackage(0)));
    clock.advanceMillis(250);
    garbage[0] = true; // a megajoule in one sample: 4 MW over the window
    assertThat(w.close(3)).isEqualTo(Energy.estimated(3));
    assertThat(meter.counters().getFirst().issue()).contains(CounterIssue.COUNTER_RESET);
  }

  // An Apple GPU is a rail of the SoC, held to the 1 kW of every Apple rail (SPEC.md 40 §1), not
  // to a discrete board's 2 kW: 1.7 kW over a window is a fault, not a reading.
  @Test
  void gpuRailDeltaPastOneKilowatt_isAResetNotAReading() {
    FakeClock clock = new FakeClock();
    long[] gpuWatts = {20};
    CounterMeter meter = meterOver(cpuAndGpuRails(clock, () -> gpuWatts[0]), clock, r -> {});
    meter.probeNow();
    assertThat(meter.liveDomains()).contains(EnergyDomain.gpu(0));
    MeterWindow w = meter.open(Set.of(EnergyDomain.gpu(0)));
    gpuWatts[0] = 1_700; // 1.7 kJ in a second: past 1 kW however the reads fall, within 2 kW
    clock.advanceMillis(1_000);
    assertThat(w.close(3)).isEqualTo(Energy.estimated(3));
    assertThat(meter.counters())
        .filteredOn(s -> s.domain().equals(Optional.of(EnergyDomain.gpu(0))))
        .singleElement()
        .satisfies(s -> assertThat(s.issue()).contains(CounterIssue.COUNTER_RESET));
    meter.close();
  }

  // On a two-die part the CPU rail is the sum of each die's, and it advances when either does.
  // A die whose rail is frozen is CPU no live counter reads (§3.3): every rail must move.
  @Test
  void twoDies_whenOneDiesCpuRailIsFrozen_theCpuIsNotLive() {
    FakeClock clock = new FakeClock();
    boolean[] die1Frozen = {true};
    IoReportSampler sampler =
        () ->
            List.of(
                new IoReportEntry("Energy Model", "DIE_0_CPU Energy", "mJ", 100),
                new IoReportEntry(
                    "Energy Model", "DIE_1_CPU Energy", "mJ", die1Frozen[0] ? 0 : 80));
    CounterMeter meter = clock.watch(meterOver(sampler, clock));
    assertThat(meter.probeNow())
        .filteredOn(s -> s.domain().equals(Optional.of(EnergyDomain.cpuPackage(0))))
        .singleElement()
        .satisfies(s -> assertThat(s.issue()).contains(CounterIssue.FROZEN));
    die1Frozen[0] = false;
    meter.probeNow();
    assertThat(meter.liveDomains()).containsExactly(EnergyDomain.cpuPackage(0));
    die1Frozen[0] = true;
    MeterWindow w = meter.open(Set.of(EnergyDomain.cpuPackage(0)));
    clock.advanceMillis(250);
    assertThat(w.close(3)).isEqualTo(Energy.estimated(3));
    // Demoted as STALLED, and the re-probe that runs at once here finds it FROZEN.
    assertThat(meter.counters().getFirst().issue()).contains(CounterIssue.FROZEN);
  }

  @Test
  void steadyRecording_isLiveAndGradesAServeHwShunt() throws IOException {
    FakeClock clock = new FakeClock();
    CounterMeter meter = meterOver(Replay.of("ioreport-steady.txt"), clock);
    meter.probeNow();
    assertThat(meter.liveDomains())
        .containsExactlyInAnyOrder(
            EnergyDomain.cpuPackage(0), EnergyDomain.gpu(0), EnergyDomain.dram(0));
    MeterWindow w = meter.open(Set.of(EnergyDomain.cpuPackage(0)));
    clock.advanceMillis(250); // ten update periods of 20 ms and more
    Energy e = w.close(3);
    assertThat(e.provenance()).isEqualTo(Provenance.HwShunt);
    // The CPU rail over the window: one sample delta (90 to 110 mJ in the recording), or two when
    // the DRAM counter that the package's window also covers took a sample in between.
    assertThat(e.measuredUj().getAsLong()).isBetween(90_000L, 250_000L);
  }

  @Test
  void lumpyRecording_isNotLive_andFallsBackToTheEstimator() throws IOException {
    FakeClock clock = new FakeClock();
    CounterMeter meter = meterOver(Replay.of("ioreport-lumpy.txt"), clock);
    assertThat(meter.probeNow())
        .filteredOn(s -> s.domain().equals(Optional.of(EnergyDomain.cpuPackage(0))))
        .singleElement()
        .satisfies(s -> assertThat(s.issue()).contains(CounterIssue.LUMPY));
    assertThat(meter.liveDomains()).isEmpty(); // GPU and DRAM read zero throughout: frozen
    assertThat(meter.open(Set.of(EnergyDomain.cpuPackage(0))).close(3))
        .isEqualTo(Energy.estimated(3));
  }

  @Test
  void discover_offMacOs_isUnsupportedPlatformWithoutNativeCalls() {
    List<EnergyChannel> found = new ArrayList<>();
    List<CounterStatus> refused = new ArrayList<>();
    IoReportDiscovery.discover("Linux", found, refused);
    assertThat(found).isEmpty();
    assertThat(refused.getFirst().issue()).contains(CounterIssue.UNSUPPORTED_PLATFORM);
    assertThat(IoReportDiscovery.isMacOs("Mac OS X")).isTrue();
  }

  @Test
  void close_releasesTheSubscriptionOnce() throws IOException {
    Replay replay = Replay.of("ioreport-steady.txt");
    CounterMeter meter = meterOver(replay, new FakeClock());
    meter.close();
    assertThat(replay.released).isTrue();
  }

  @Test
  void adopt_whenTheFirstSamplesFail_refusesIoReport_andReleasesTheSubscription() {
    boolean[] released = {false};
    IoReportSampler failing =
        new IoReportSampler() {
          @Override
          public List<IoReportEntry> sampleDelta() throws CounterException {
            throw new CounterException(CounterIssue.NATIVE_ERROR, "IOReportCreateSamples failed");
          }

          @Override
          public void release() {
            released[0] = true;
          }
        };
    List<EnergyChannel> found = new ArrayList<>();
    List<CounterStatus> refused = new ArrayList<>();
    IoReportDiscovery.adopt(new IoReportSession(failing), failing, found, refused);
    assertThat(found).isEmpty();
    assertThat(refused)
        .singleElement()
        .satisfies(
            s -> {
              assertThat(s.counter()).isEqualTo("ioreport");
              assertThat(s.issue()).contains(CounterIssue.NATIVE_ERROR);
            });
    assertThat(released[0]).as("the subscription is released").isTrue();
  }

  @Test
  void adopt_whenNoSampleCarriesACpuGpuOrDramRail_refusesIoReport_andReleasesTheSubscription() {
    Replay replay =
        new Replay(
            List.of(
                List.of(
                    new IoReportEntry("Energy Model", "ANE", "mJ", 4),
                    new IoReportEntry("CPU Stats", "CPU Energy", "mJ", 100))));
    List<EnergyChannel> found = new ArrayList<>();
    List<CounterStatus> refused = new ArrayList<>();
    IoReportDiscovery.adopt(new IoReportSession(replay), replay, found, refused);
    assertThat(found).isEmpty();
    assertThat(refused)
        .singleElement()
        .satisfies(s -> assertThat(s.issue()).contains(CounterIssue.NOT_PRESENT));
    assertThat(replay.released).isTrue();
  }

  @Test
  void adopt_keepsTheSubscriptionUntilTheLastChannelOverItIsReleased() throws IOException {
    Replay oneRail =
        new Replay(List.of(List.of(new IoReportEntry("Energy Model", "CPU Energy", "mJ", 3))));
    List<EnergyChannel> found = new ArrayList<>();
    IoReportDiscovery.adopt(new IoReportSession(oneRail), oneRail, found, new ArrayList<>());
    assertThat(found).singleElement();
    assertThat(oneRail.released).as("held by its channel").isFalse();
    found.getFirst().release();
    assertThat(oneRail.released).isTrue();

    Replay steady = Replay.of("ioreport-steady.txt");
    List<EnergyChannel> three = new ArrayList<>();
    IoReportDiscovery.adopt(new IoReportSession(steady), steady, three, new ArrayList<>());
    assertThat(three).extracting(EnergyChannel::domain).hasSize(3);
    three.get(0).release();
    three.get(1).release();
    assertThat(steady.released).as("one channel still reads it").isFalse();
    three.get(2).release();
    assertThat(steady.released).isTrue();
  }
}
