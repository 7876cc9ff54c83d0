package org.meshjava.energy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.meshjava.core.Energy;
import org.meshjava.core.EnergyDomain;

/** The default discovery on this machine, and the options' guards. */
class MeterDiscoveryTest {

  @Test
  void discover_withDefaults_neverThrowsAndExplainsEveryRefusal() {
    long start = System.nanoTime();
    MeterDiscovery found = MeterDiscovery.discover(DiscoveryOptions.defaults());
    long tookMs = (System.nanoTime() - start) / 1_000_000;
    assertThat(tookMs).as("fast on a machine without counters").isLessThan(2_000);
    if (!found.hardwareGraded()) {
      assertThat(found.meter()).isInstanceOf(EstimatorMeter.class);
      assertThat(found.counters()).isNotEmpty().allSatisfy(s -> assertThat(s.issue()).isPresent());
      assertThat(found.meter().open(java.util.Set.of(EnergyDomain.cpuPackage(0))).close(9))
          .isEqualTo(Energy.estimated(9));
    } else {
      ((CounterMeter) found.meter()).close();
    }
  }

  /** The one INFO line discovery logs: what it found, and how figures are graded. */
  @Test
  void summary_namesEachCounterNotUsed_andHowFiguresAreGraded() {
    List<CounterStatus> none =
        List.of(
            CounterStatus.unavailable(
                "rapl", Optional.empty(), CounterIssue.NOT_PRESENT, "no powercap tree"),
            CounterStatus.unavailable(
                "nvml", Optional.empty(), CounterIssue.LIBRARY_MISSING, "no libnvidia-ml.so.1"));
    assertThat(MeterDiscovery.summary(new EstimatorMeter(), none))
        .isEqualTo(
            "no readable energy counter, so figures are graded Estimator; not used: rapl"
                + " NOT_PRESENT, nvml LIBRARY_MISSING");

    List<CounterStatus> probed =
        List.of(
            CounterStatus.notLive(
                "rapl:intel-rapl:0", EnergyDomain.cpuPackage(0), CounterIssue.FROZEN, "frozen"));
    assertThat(MeterDiscovery.summary(new EstimatorMeter(), probed))
        .startsWith("no energy counter proved live, so figures are graded Estimator")
        .endsWith("not used: rapl:intel-rapl:0 FROZEN");
  }

  @Test
  void discover_offMacOs_saysIoReportIsUnsupported_unlessItIsLeftOut() {
    DiscoveryOptions ioReportOnly = DiscoveryOptions.defaults().withoutRapl().withoutNvml();
    MeterDiscovery linux =
        MeterDiscovery.discover(ioReportOnly, ProbeClock.SYSTEM, null, SysfsReader.FILES, "Linux");
    assertThat(linux.meter()).isInstanceOf(EstimatorMeter.class);
    assertThat(linux.counters())
        .singleElement()
        .satisfies(
            s -> {
              assertThat(s.counter()).isEqualTo("ioreport");
              assertThat(s.issue()).contains(CounterIssue.UNSUPPORTED_PLATFORM);
              assertThat(s.detail()).endsWith("this is Linux");
            });
    MeterDiscovery none =
        MeterDiscovery.discover(
            ioReportOnly.withoutIoReport(), ProbeClock.SYSTEM, null, SysfsReader.FILES, "Linux");
    assertThat(none.counters()).isEmpty();
  }

  @Test
  void lease_overNoSource_holdsTheEstimator() {
    DiscoveryOptions nothing =
        DiscoveryOptions.defaults().withoutRapl().withoutNvml().withoutIoReport();
    try (MeterLease lease = MeterDiscovery.lease(nothing)) {
      assertThat(lease.meter()).isInstanceOf(EstimatorMeter.class);
      assertThat(lease.discovery().counters()).isEmpty();
    }
  }

  @Test
  void nativeAccessDenied_quotesTheRefusal_andNamesTheFlagThatGrantsIt() {
    assertThat(MeterDiscovery.nativeAccessDenied(new IllegalCallerException("restricted call")))
        .startsWith("native access is denied to this module (restricted call)")
        .contains("--enable-native-access=org.meshjava.energy");
  }

  @Test
  void discover_namesANullArgument_andThisMachinesSystem() {
    assertThatThrownBy(() -> MeterDiscovery.discover(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("options");
    assertThatThrownBy(() -> new MeterDiscovery(null, List.of()))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("meter");
    String os = System.getProperty("os.name", "");
    if (!os.startsWith("Mac")) {
      MeterDiscovery found =
          MeterDiscovery.discover(DiscoveryOptions.defaults().withoutRapl().withoutNvml());
      assertThat(found.counters())
          .singleElement()
          .satisfies(s -> assertThat(s.detail()).endsWith("this is " + os));
    }
  }

  @Test
  void unreadableAdvice_isForRefusedRaplFilesOnly_andSendsAnUnreadNameElsewhere() {
    // Only RAPL discovery records refusals (an NVML counter is never one), so none gives none.
    assertThat(MeterDiscovery.unreadableAdvice(List.of())).isEmpty();
    String advice =
        MeterDiscovery.unreadableAdvice(
                List.of(new PowercapRefusal("rapl:intel-rapl:0", PowercapRefusal.File.NAME, true)))
            .orElseThrow();
    assertThat(advice).contains("rapl:intel-rapl:0 (name)").doesNotContain("energy_uj");
  }

  @Test
  void policy_refusesPollingLessOftenThanItSamples() {
    assertThatThrownBy(
            () ->
                new LivenessPolicy(
                    Duration.ofMillis(20), Duration.ofMillis(400), Duration.ofMillis(21)))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void options_refuseReprobingFasterThanTheNvmlProbeTakes() {
    assertThatThrownBy(() -> DiscoveryOptions.defaults().withReprobeEvery(Duration.ofSeconds(1)))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void options_refuseReprobingFasterThanAProbeTakes() {
    assertThatThrownBy(() -> DiscoveryOptions.defaults().withReprobeEvery(Duration.ofMillis(100)))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void options_refuseABlankLibrary() {
    assertThatThrownBy(() -> DiscoveryOptions.defaults().withNvmlLibrary(" "))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void counterStatus_refusesALiveCounterWithAnIssue() {
    assertThatThrownBy(
            () ->
                new CounterStatus(
                    "x",
                    java.util.Optional.empty(),
                    CounterState.LIVE,
                    java.util.Optional.of(CounterIssue.FROZEN),
                    ""))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
