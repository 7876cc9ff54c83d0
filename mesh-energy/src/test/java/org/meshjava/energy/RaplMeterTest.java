package org.meshjava.energy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.core.Energy;
import org.meshjava.core.EnergyDomain;
import org.meshjava.core.HostPackages;
import org.meshjava.core.Provenance;

/** RAPL on a fake powercap tree: advancing, frozen, wrapping, unreadable. */
class RaplMeterTest {
  private static final EnergyDomain CPU0 = EnergyDomain.cpuPackage(0);
  private static final EnergyDomain DRAM0 = EnergyDomain.dram(0);
  private static final long RANGE = 262_143_328_850L; // a real package's max_energy_range_uj

  @TempDir Path root;
  private final FakeClock clock = new FakeClock();
  private final List<Runnable> reprobes = new ArrayList<>();

  private Path zone(String dir, String name, long energy) throws IOException {
    return zone(dir, name, energy, RANGE);
  }

  private Path zone(String dir, String name, long energy, long range) throws IOException {
    Path z = Files.createDirectories(root.resolve(dir));
    Files.writeString(z.resolve("name"), name + "\n");
    Files.writeString(z.resolve("max_energy_range_uj"), range + "\n");
    Files.writeString(z.resolve("energy_uj"), energy + "\n");
    return z;
  }

  /**
   * Makes a zone's counter run at {@code watts} as fake time passes, wrapping as the kernel's does
   * at the range ({@link #powered(Path, long, long, long, Path...)}).
   */
  private AtomicLong powered(Path zone, long start, long watts) {
    return powered(zone, start, watts, RANGE);
  }

  /**
   * The same, for a zone whose counter wraps at {@code range}; further zones mirror it. As the
   * kernel's {@code energy_uj} (the 32-bit status register times the energy unit), the value reads
   * {@code range} itself, and drops to 0 one energy unit ({@link RaplChannel#wrapStepUj}) later:
   * energy drawn past the range shows only once that unit is complete. The value is served from
   * memory by {@link #discover}'s reader (writing a file at every fake millisecond made the suite
   * slow), and the file keeps the value it was created with.
   */
  private AtomicLong powered(Path zone, long start, long watts, long range, Path... mirrors) {
    AtomicLong value = new AtomicLong(start);
    powered.put(zone.resolve("energy_uj"), value);
    for (Path m : mirrors) {
      powered.put(m.resolve("energy_uj"), value);
    }
    long modulus = range + RaplChannel.wrapStepUj(range);
    long[] pastRange = {0}; // drawn beyond the range while the value still reads it
    clock.onAdvance(
        nanos -> {
          long carried = value.get() == range ? pastRange[0] : 0;
          long next = (value.get() + carried + nanos * watts / 1_000) % modulus;
          pastRange[0] = Math.max(0, next - range);
          value.set(Math.min(next, range));
        });
    return value;
  }

  private final java.util.Map<Path, AtomicLong> powered =
      new java.util.concurrent.ConcurrentHashMap<>();

  /** How many reads of any {@code energy_uj} still fail, as a driver's EIO fails them. */
  private final java.util.concurrent.atomic.AtomicInteger energyReadsFailing =
      new java.util.concurrent.atomic.AtomicInteger();

  /** The host packages the discovery's options name; none where empty. */
  private Optional<HostPackages> host = Optional.empty();

  /** A discovery over the fake tree whose meter's watch the clock runs (FakeClock#watch). */
  private MeterDiscovery discover(SysfsReader reader) {
    return clock.watch(discoverUnwatched(reader));
  }

  /** The same, with no watch: the counter is read only when the test or a window reads it. */
  private MeterDiscovery discoverUnwatched(SysfsReader reader) {
    DiscoveryOptions options =
        DiscoveryOptions.defaults().withRaplRoot(root).withoutNvml().withoutIoReport();
    if (host.isPresent()) {
      options = options.withHostPackages(host.get());
    }
    SysfsReader withPower =
        file -> {
          if (file.getFileName().toString().equals("energy_uj")
              && energyReadsFailing.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
            throw new IOException("Input/output error"); // the file opened; its read failed
          }
          AtomicLong value = powered.get(file);
          if (value != null) {
            return Long.toString(value.get());
          }
          return reader.read(file);
        };
    return MeterDiscovery.discover(options, clock, reprobes::add, withPower, "Linux");
  }

  /**
   * Opens windows a second apart until the demoted counter's re-probe falls due, and runs it: at
   * once after a first demotion, later after each further one within the re-probe period (SPEC.md
   * 40 §2), as these tests demote one counter case after case.
   */
  private void runReprobeOnceDue(CounterMeter meter) {
    while (reprobes.isEmpty()) {
      clock.advanceMillis(1_000);
      meter.open(Set.of(CPU0)).abandon();
    }
    assertThat(reprobes).hasSize(1);
    reprobes.removeFirst().run();
  }

  @Test
  void discover_whenPackageAndDramAdvance_gradesAServeHwShunt() throws IOException {
    Path pkg = zone("intel-rapl:0", "package-0", 1_000);
    Path dram = zone("intel-rapl:0:0", "dram", 5);
    AtomicLong pkgValue = powered(pkg, 1_000, 15);
    AtomicLong dramValue = powered(dram, 5, 2);
    MeterDiscovery found = discover(SysfsReader.FILES);
    assertThat(found.hardwareGraded()).isTrue();
    CounterMeter meter = (CounterMeter) found.meter();
    assertThat(meter.liveDomains()).containsExactlyInAnyOrder(CPU0, DRAM0);

    long pkgBefore = pkgValue.get();
    long dramBefore = dramValue.get();
    MeterWindow w = meter.open(Set.of(CPU0, DRAM0));
    clock.advanceMillis(50);
    Energy e = w.close(77);
    assertThat(e.provenance()).isEqualTo(Provenance.HwShunt);
    assertThat(e.measuredUj())
        .hasValue((pkgValue.get() - pkgBefore) + (dramValue.get() - dramBefore))
        .hasValue(750_000 + 100_000);
    meter.close();
  }

  /**
   * Regression: a host whose CPU topology could be read only in part (a container hiding {@code
   * /sys/devices/system/cpu}: package 0 stands in for every package) had a serve on package 0's
   * live counter graded a reading, though the serve may have run on a package no counter read. A
   * host list that may be incomplete makes no window a reading now.
   */
  @Test
  void aServe_onAHostWhosePackagesMayBeIncomplete_isNotHwShunt() throws IOException {
    Path pkg = zone("intel-rapl:0", "package-0", 1_000);
    powered(pkg, 1_000, 15);
    host = Optional.of(new HostPackages(Set.of(CPU0), false));
    CounterMeter meter = (CounterMeter) discover(SysfsReader.FILES).meter();
    assertThat(meter.liveDomains()).containsExactly(CPU0);

    MeterWindow w = meter.open(Set.of(CPU0));
    clock.advanceMillis(50);
    assertThat(w.close(77)).isEqualTo(Energy.estimated(77));
    meter.close();
  }

  @Test
  void discover_whenEnergyFileNeverChanges_fallsBackToEstimatorSayingFrozen() throws IOException {
    zone("intel-rapl:0", "package-0", 123_456);
    MeterDiscovery found = discover(SysfsReader.FILES);
    assertThat(found.meter()).isInstanceOf(EstimatorMeter.class);
    assertThat(found.counters())
        .singleElement()
        .satisfies(
            s -> {
              assertThat(s.counter()).isEqualTo("rapl:intel-rapl:0");
              assertThat(s.issue()).contains(CounterIssue.FROZEN);
              assertThat(s.state()).isEqualTo(CounterState.NOT_LIVE);
            });
  }

  @Test
  void window_acrossAWrap_measuresTheTrueDelta() throws IOException {
    Path pkg = zone("intel-rapl:0", "package-0", RANGE - 2_000_000);
    powered(pkg, RANGE - 2_000_000, 1);
    CounterMeter meter = (CounterMeter) discover(SysfsReader.FILES).meter();
    // The probe consumed 400 ms at 1 W = 400 000 µJ; 1 600 000 µJ are left before the wrap.
    MeterWindow w = meter.open(Set.of(CPU0));
    clock.advanceMillis(2_000); // 2 000 000 µJ: through the wrap
    Energy e = w.close(1);
    assertThat(e.provenance()).isEqualTo(Provenance.HwShunt);
    assertThat(e.measuredUj()).hasValue(2_000_000);
    meter.close();
  }

  @Test
  void discover_whenEnergyFileDeniesAccess_isUnavailableNotAnException() throws IOException {
    zone("intel-rapl:0", "package-0", 1);
    SysfsReader rootOnly =
        file -> {
          if (file.getFileName().toString().equals("energy_uj")) {
            throw new AccessDeniedException(file.toString());
          }
          return SysfsReader.FILES.read(file);
        };
    MeterDiscovery found = discover(rootOnly);
    assertThat(found.meter()).isInstanceOf(EstimatorMeter.class);
    assertThat(found.counters())
        .singleElement()
        .satisfies(
            s -> {
              assertThat(s.state()).isEqualTo(CounterState.UNAVAILABLE);
              assertThat(s.issue()).contains(CounterIssue.UNREADABLE);
              assertThat(s.detail()).contains("root-only");
            });
  }

  @Test
  void discover_whenTheFirstReadsFailWithEio_readsAgainAndTheZoneIsLive() throws IOException {
    powered(zone("intel-rapl:0", "package-0", 1), 1_000, 50);
    energyReadsFailing.set(2);
    MeterDiscovery found = discover(SysfsReader.FILES);

    assertThat(found.meter()).isInstanceOf(CounterMeter.class);
    CounterMeter meter = (CounterMeter) found.meter();
    assertThat(meter.liveDomains()).containsExactly(CPU0);
    meter.close();
  }

  @Test
  void discover_whenReadsKeepFailingWithEio_givesUpWithinTheBound_withoutAccessAdvice()
      throws IOException {
    powered(zone("intel-rapl:0", "package-0", 1), 1_000, 50);
    energyReadsFailing.set(Integer.MAX_VALUE);
    long start = clock.nanoTime();
    MeterDiscovery found = discover(SysfsReader.FILES);

    assertThat(found.meter()).isInstanceOf(EstimatorMeter.class);
    assertThat(clock.nanoTime() - start).isLessThanOrEqualTo(MomentaryRetry.BUDGET_NANOS);
    CounterStatus refused = found.counters().getFirst();
    assertThat(refused.issue())
        .as("not denied: no advice on access")
        .contains(CounterIssue.READ_FAILED);
    assertThat(refused.detail()).contains("Input/output error", "tries over");
  }

  @Test
  void discover_whenEnergyFileModeIsRootOnlyAndWeAreNotRoot_isUnreadable() throws IOException {
    assumeFalse(
        "root".equals(System.getProperty("user.name")),
        "running as root, for whom mode 0400 denies nothing; the scripted-reader test covers it");
    Path pkg = zone("intel-rapl:0", "package-0", 1);
    Files.setPosixFilePermissions(
        pkg.resolve("energy_uj"), PosixFilePermissions.fromString("---------"));
    MeterDiscovery found = discover(SysfsReader.FILES);
    assertThat(found.counters().getFirst().issue()).contains(CounterIssue.UNREADABLE);
  }

  @Test
  void discover_whenNoPowercapTree_saysNotPresentAndIsFast() {
    DiscoveryOptions options =
        DiscoveryOptions.defaults().withRaplRoot(root.resolve("absent")).withoutNvml();
    long start = System.nanoTime();
    MeterDiscovery found = MeterDiscovery.discover(options);
    assertThat(System.nanoTime() - start).isLessThan(1_000_000_000L);
    assertThat(found.meter()).isInstanceOf(EstimatorMeter.class);
    assertThat(found.counters())
        .anySatisfy(s -> assertThat(s.issue()).contains(CounterIssue.NOT_PRESENT));
  }

  @Test
  void discover_skipsPsysCoreAndUncore_andMapsDramToItsPackage() throws IOException {
    zone("intel-rapl:1", "package-1", 0);
    zone("intel-rapl:1:0", "core", 0);
    zone("intel-rapl:1:1", "dram", 0);
    zone("intel-rapl:2", "psys", 0);
    List<CounterStatus> refused = new ArrayList<>();
    assertThat(domainsFound(refused))
        .containsExactly(EnergyDomain.cpuPackage(1), EnergyDomain.dram(1));
    assertThat(refused)
        .extracting(CounterStatus::counter)
        .containsExactlyInAnyOrder("rapl:intel-rapl:1:0", "rapl:intel-rapl:2");
    assertThat(refused).allSatisfy(s -> assertThat(s.issue()).contains(CounterIssue.NOT_A_DOMAIN));
  }

  // Item 4: a counter read only at window edges can wrap more than once inside a long window.
  private static final long SMALL_RANGE = 65_532_610_987L; // about 65.5 kJ, as on some parts

  @Test
  void window_longerThanAWrapPeriodUnread_isNotHwShunt() throws IOException {
    Path pkg = zone("intel-rapl:0", "package-0", 0, SMALL_RANGE);
    powered(pkg, 0, 300, SMALL_RANGE);
    // Unwatched: a live counter is read every two update periods while a window is open on it, so
    // only a meter whose watch does not run (its thread starved) leaves a window unread between
    // its edges; the read-gap rule is what still refuses it then.
    CounterMeter meter = (CounterMeter) discoverUnwatched(SysfsReader.FILES).meter();
    MeterWindow w = meter.open(Set.of(CPU0));
    clock.advanceMillis(300_000); // 5 minutes at 300 W: 90 kJ, the counter wraps once more
    Energy e = w.close(1);
    assertThat(e.provenance()).as("read only at the edges: " + e).isEqualTo(Provenance.Estimator);
    meter.close();
  }

  @Test
  void window_longerThanAWrapPeriod_isMeasuredWhenTheCounterIsPolledBetween() throws IOException {
    Path pkg = zone("intel-rapl:0", "package-0", 0, SMALL_RANGE);
    powered(pkg, 0, 300, SMALL_RANGE);
    CounterMeter meter = (CounterMeter) discover(SysfsReader.FILES).meter();
    MeterWindow w = meter.open(Set.of(CPU0));
    for (int i = 0; i < 10; i++) {
      clock.advanceMillis(30_000); // under the 65 s the range lasts at the assumed 1 kW
      meter.pollCounters();
    }
    Energy e = w.close(1);
    assertThat(e.provenance()).isEqualTo(Provenance.HwShunt);
    assertThat(e.measuredUj()).hasValue(90_000_000_000L);
    meter.close();
  }

  // A zone drawing past 2 kW wrapped twice between the timer's reads when every zone was bounded at
  // 1 kW: 5 kW for 30 s (150 kJ) on a 65.5 kJ range was counted 18.9 kJ, graded HwShunt. A zone's
  // published power constraints now set its read interval and its reset bound (SPEC.md 40 §3).
  private static void constraint(Path zone, String file, long microwatts) throws IOException {
    Files.writeString(zone.resolve(file), microwatts + "\n");
  }

  /** Runs fake time for {@code nanos}, reading every counter as the meter's timer would. */
  private static void runPolled(CounterMeter meter, FakeClock clock, long nanos) {
    long every = meter.pollEveryNanos().orElseThrow();
    long end = clock.nanoTime() + nanos;
    while (clock.nanoTime() + every < end) {
      clock.burnUntil(clock.nanoTime() + every);
      meter.pollCounters();
    }
    clock.burnUntil(end);
  }

  @Test
  void zoneDrawingFiveKilowatts_isReadOftenEnoughByItsPublishedLimits_andCountedWhole()
      throws IOException {
    Path pkg = zone("intel-rapl:0", "package-0", 0, SMALL_RANGE);
    constraint(pkg, "constraint_0_power_limit_uw", 1_800_000_000L);
    constraint(pkg, "constraint_0_max_power_uw", 1_500_000_000L);
    constraint(pkg, "constraint_1_power_limit_uw", 2_500_000_000L);
    constraint(pkg, "constraint_1_max_power_uw", 2_000_000_000L);
    powered(pkg, 0, 5_000, SMALL_RANGE);
    CounterMeter meter = (CounterMeter) discover(SysfsReader.FILES).meter();
    assertThat(meter.pollEveryNanos())
        .as("half the 13.1 s the range lasts at twice the highest limit, 2.5 kW")
        .hasValue(6_553_261_000L);
    // Drawing all of that bound, the zone is then read for four times what it was seen drawing,
    // from the first gap on; a window across that read is no reading (SPEC.md 40 §3).
    clock.advanceMillis(1_000);
    meter.pollCounters();
    assertThat(meter.pollEveryNanos()).as("half of 3.3 s, at 20 kW").hasValue(1_638_315_000L);

    MeterWindow w = meter.open(Set.of(CPU0));
    runPolled(meter, clock, 30_000_000_000L);
    Energy e = w.close(1);

    assertThat(e.provenance()).isEqualTo(Provenance.HwShunt);
    assertThat(e.measuredUj()).as("5 kW for 30 s").hasValue(150_000_000_000L);
    meter.close();
  }

  // A higher figure loosens the reset bound only to what the zone may draw: a restart is still
  // told from a wrap (here 25.5 kJ in 50 ms as a wrap, against 750 J at 5 kW over 150 ms).
  @Test
  void zonePublishingHighLimits_stillTellsARestartFromAWrap() throws IOException {
    Path pkg = zone("intel-rapl:0", "package-0", 40_000_000_000L, SMALL_RANGE);
    constraint(pkg, "constraint_1_power_limit_uw", 2_500_000_000L);
    AtomicLong value = powered(pkg, 40_000_000_000L, 15, SMALL_RANGE);
    CounterMeter meter = (CounterMeter) discover(SysfsReader.FILES).meter();
    MeterWindow serve = meter.open(Set.of(CPU0));

    clock.advanceMillis(25);
    value.set(2_000);
    clock.advanceMillis(25);

    assertThat(serve.close(77)).isEqualTo(Energy.estimated(77));
    assertThat(meter.counters().getFirst().issue()).contains(CounterIssue.COUNTER_RESET);
    meter.close();
  }

  // The dies of one package draw together: the sum may grow by every die's figure at once.
  @Test
  void packageSummedFromDiesPublishingLimits_isBoundedByTheirSum_andCountedWhole()
      throws IOException {
    Path die0 = zone("intel-rapl:0", "package-0-die-0", 0, SMALL_RANGE);
    Path die1 = zone("intel-rapl:1", "package-0-die-1", 7_777, SMALL_RANGE);
    constraint(die0, "constraint_1_power_limit_uw", 2_000_000_000L);
    constraint(die1, "constraint_1_power_limit_uw", 2_000_000_000L);
    powered(die0, 0, 3_000, SMALL_RANGE);
    powered(die1, 7_777, 3_000, SMALL_RANGE);
    CounterMeter meter = (CounterMeter) discover(SysfsReader.FILES).meter();
    // Each die draws over half its 4 kW: the first gap shortens the interval (SPEC.md 40 §3).
    clock.advanceMillis(1_000);
    meter.pollCounters();

    MeterWindow w = meter.open(Set.of(CPU0));
    runPolled(meter, clock, 30_000_000_000L);
    Energy e = w.close(1);

    assertThat(e.provenance())
        .as("6 kW over the package is within 2 x 4 kW: " + e)
        .isEqualTo(Provenance.HwShunt);
    assertThat(e.measuredUj()).as("two dies at 3 kW for 30 s").hasValue(180_000_000_000L);
    meter.close();
  }

  // A burst above the long-term limit is real: PL2 (the short-term constraint) is often 1.25 to 2
  // times PL1, held for PL1's time window (28 s by default). The reset bound is twice the highest
  // figure the zone publishes, so such a burst is at most half of it (SPEC.md 40 §3).
  @Test
  void aPl2BurstAtTwicePl1ForItsWholeTimeWindow_isCountedWhole_notCalledAReset()
      throws IOException {
    Path pkg = zone("intel-rapl:0", "package-0", 0, SMALL_RANGE);
    constraint(pkg, "constraint_0_power_limit_uw", 500_000_000L); // PL1 500 W
    constraint(pkg, "constraint_0_max_power_uw", 500_000_000L);
    constraint(pkg, "constraint_1_power_limit_uw", 1_000_000_000L); // PL2 1 kW
    AtomicLong watts = new AtomicLong(500);
    AtomicLong drawn = new AtomicLong(); // 32.5 kJ in all: no wrap on the 65.5 kJ range
    clock.onAdvance(nanos -> drawn.addAndGet(nanos * watts.get() / 1_000));
    powered.put(pkg.resolve("energy_uj"), drawn);
    CounterMeter meter = (CounterMeter) discover(SysfsReader.FILES).meter();
    runPolled(meter, clock, 5_000_000_000L);

    MeterWindow w = meter.open(Set.of(CPU0));
    long before = drawn.get();
    runPolled(meter, clock, 2_000_000_000L);
    watts.set(1_000); // the burst, at once, as a turbo step is
    runPolled(meter, clock, 28_000_000_000L);
    watts.set(500);
    runPolled(meter, clock, 2_000_000_000L);
    long used = drawn.get() - before;
    Energy e = w.close(1);

    assertThat(meter.counters().getFirst().issue()).as("no reset").isEmpty();
    assertThat(e.provenance()).isEqualTo(Provenance.HwShunt);
    assertThat(e.measuredUj().getAsLong()).isBetween(used - 1_000_000, used);
    meter.close();
  }

  @Test
  void zoneWithoutConstraintFiles_orWithLowOrUnreadableOnes_isReadAsAtOneKilowatt()
      throws IOException {
    Path pkg = zone("intel-rapl:0", "package-0", 0, SMALL_RANGE);
    powered(pkg, 0, 300, SMALL_RANGE);
    CounterMeter bare = (CounterMeter) discover(SysfsReader.FILES).meter();
    assertThat(bare.pollEveryNanos()).as("half of 65.5 s").hasValue(32_766_305_000L);
    bare.close();

    constraint(pkg, "constraint_0_power_limit_uw", 15_000_000L); // a laptop's 15 W long term
    constraint(pkg, "constraint_1_power_limit_uw", 64_000_000L);
    Files.writeString(pkg.resolve("constraint_1_max_power_uw"), "n/a\n");
    Files.createDirectory(pkg.resolve("constraint_2_max_power_uw")); // reads fail, as psys's do
    CounterMeter limited = (CounterMeter) discover(SysfsReader.FILES).meter();
    assertThat(limited.pollEveryNanos()).hasValue(32_766_305_000L);
    limited.close();
  }

  @Test
  void zoneWhoseLimitsWouldNeedReadsFasterThanASecondPerWrap_isRefusedNamingTheFigure()
      throws IOException {
    Path pkg = zone("intel-rapl:0", "package-0", 0, SMALL_RANGE);
    constraint(pkg, "constraint_1_max_power_uw", 40_000_000_000L); // 80 kW: 0.82 s per wrap
    powered(pkg, 0, 300, SMALL_RANGE);
    MeterDiscovery found = discover(SysfsReader.FILES);

    assertThat(found.meter()).isInstanceOf(EstimatorMeter.class);
    assertThat(found.counters()).hasSize(1);
    CounterStatus refused = found.counters().getFirst();
    assertThat(refused.issue()).contains(CounterIssue.READ_FAILED);
    assertThat(refused.detail())
        .contains("under a second at 80000 W")
        .contains("constraint_1_max_power_uw of 40000000000 µW")
        .contains("cannot be read often enough to see every wrap");
  }

  // A counter that comes back lower than it was is a wrap only if the zone could have drawn the
  // rest of the range since the last read. Suspend to RAM or a package reset restarts the MSR
  // near 0: folding that in as a wrap added the whole remaining range (here 162 kJ in 50 ms, over
  // 3 MW) to a figure graded HwShunt.
  @Test
  void window_whenCounterResetsMidServe_isNotAWrapAndNotHwShunt() throws IOException {
    Path pkg = zone("intel-rapl:0", "package-0", 100_000_000_000L);
    AtomicLong value = powered(pkg, 100_000_000_000L, 15);
    CounterMeter meter = (CounterMeter) discover(SysfsReader.FILES).meter();
    assertThat(meter.liveDomains()).containsExactly(CPU0);
    MeterWindow w = meter.open(Set.of(CPU0));
    MeterWindow other = meter.open(Set.of(CPU0));
    clock.advanceMillis(20);
    value.set(2_000); // the package counter restarted
    clock.advanceMillis(30);
    Energy e = w.close(77);
    assertThat(e).as("a reset mid-serve is no reading").isEqualTo(Energy.estimated(77));
    assertThat(other.close(5)).as("nor a share of one").isEqualTo(Energy.estimated(5));
    assertThat(meter.counters().getFirst().issue()).contains(CounterIssue.COUNTER_RESET);
    assertThat(reprobes).as("a re-probe is due").hasSize(1);
    reprobes.removeFirst().run();
    assertThat(meter.liveDomains()).containsExactly(CPU0);
    long before = value.get();
    MeterWindow after = meter.open(Set.of(CPU0));
    clock.advanceMillis(50);
    assertThat(after.close(1))
        .as("counts on from the restarted value")
        .isEqualTo(Energy.measured(value.get() - before, 1))
        .isEqualTo(Energy.measured(750_000, 1));
    meter.close();
  }

  @Test
  void window_whenCounterStepsBackSlightly_isNotAWrapThroughTheWholeRange() throws IOException {
    Path pkg = zone("intel-rapl:0", "package-0", 5_000_000);
    AtomicLong value = powered(pkg, 5_000_000, 15);
    CounterMeter meter = (CounterMeter) discover(SysfsReader.FILES).meter();
    MeterWindow w = meter.open(Set.of(CPU0));
    clock.advanceMillis(25);
    value.addAndGet(-1_000_000); // a driver that republishes an older value
    clock.advanceMillis(25);
    Energy e = w.close(77);
    assertThat(e.provenance()).as(e.toString()).isEqualTo(Provenance.Estimator);
    assertThat(e.uj()).isEqualTo(77);
    meter.close();
  }

  // A zone republished in lumps (here 18 J every 60 ms) is not live, and says so: LUMPY, not a
  // reset, though each lump is more than 1 kW could add in the millisecond between two polls.
  @Test
  void discover_whenZonePublishesInLumps_isLumpyNotAReset() throws IOException {
    Path pkg = zone("intel-rapl:0", "package-0", 0);
    AtomicLong drawn = new AtomicLong();
    AtomicLong published = new AtomicLong();
    powered.put(pkg.resolve("energy_uj"), published);
    long[] sincePublish = {0};
    clock.onAdvance(
        nanos -> {
          drawn.addAndGet(nanos * 300 / 1_000); // 300 W
          sincePublish[0] += nanos;
          if (sincePublish[0] >= 60_000_000L) {
            sincePublish[0] %= 60_000_000L;
            published.set(drawn.get() % RANGE);
          }
        });
    MeterDiscovery found = discover(SysfsReader.FILES);
    assertThat(found.meter()).isInstanceOf(EstimatorMeter.class);
    assertThat(found.counters().getFirst().issue()).contains(CounterIssue.LUMPY);
  }

  // A real wrap at a plausible power, seen between two close reads, is still a wrap.
  @Test
  void window_whenCounterWrapsAtFullPowerBetweenPolls_isStillMeasured() throws IOException {
    Path pkg = zone("intel-rapl:0", "package-0", 0, SMALL_RANGE);
    AtomicLong value = powered(pkg, 0, 900, SMALL_RANGE);
    CounterMeter meter = (CounterMeter) discover(SysfsReader.FILES).meter();
    // The first gap at 900 W, over half the 1 kW the zone is read for, shortens its interval; a
    // window across that read is no reading (SPEC.md 40 §3), so this one opens after it.
    clock.advanceMillis(30_000);
    meter.pollCounters();
    MeterWindow w = meter.open(Set.of(CPU0));
    runPolled(meter, clock, 180_000_000_000L); // 8.2 kJ a read at 900 W: a wrap every eight
    Energy e = w.close(1);
    assertThat(e.provenance()).isEqualTo(Provenance.HwShunt);
    assertThat(e.measuredUj()).hasValue(162_000_000_000L);
    assertThat(value.get()).isLessThan(SMALL_RANGE);
    meter.close();
  }

  // A counter readable at discovery can stop being readable (the zone removed by a driver
  // reload, or its mode changed): the serve falls back and says why; the counter comes back
  // only through a probe.
  @Test
  void window_whenZoneVanishesOrIsDeniedMidServe_isEstimatorUntilReprobed() throws IOException {
    Path pkg = zone("intel-rapl:0", "package-0", 1_000);
    AtomicLong value = powered(pkg, 1_000, 15);
    java.util.concurrent.atomic.AtomicReference<IOException> failing =
        new java.util.concurrent.atomic.AtomicReference<>();
    Path energy = pkg.resolve("energy_uj");
    powered.remove(energy); // served below, after the scripted failure
    SysfsReader withValue =
        file -> {
          if (!file.equals(energy)) {
            return SysfsReader.FILES.read(file);
          }
          IOException f = failing.get();
          if (f != null) {
            throw f;
          }
          return Long.toString(value.get());
        };
    CounterMeter meter = (CounterMeter) discover(withValue).meter();
    assertThat(meter.liveDomains()).containsExactly(CPU0);
    for (IOException cause :
        List.of(
            new java.nio.file.NoSuchFileException(energy.toString()),
            new AccessDeniedException(energy.toString()))) {
      MeterWindow w = meter.open(Set.of(CPU0));
      clock.advanceMillis(20);
      failing.set(cause);
      clock.advanceMillis(30);
      assertThat(w.close(9)).as(cause.toString()).isEqualTo(Energy.estimated(9));
      assertThat(meter.counters().getFirst().issue()).contains(CounterIssue.READ_FAILED);
      assertThat(meter.counters().getFirst().detail()).contains("energy_uj");
      MeterWindow whileFailing = meter.open(Set.of(CPU0));
      clock.advanceMillis(50);
      assertThat(whileFailing.close(9)).isEqualTo(Energy.estimated(9));
      failing.set(null);
      runReprobeOnceDue(meter);
      assertThat(meter.liveDomains()).as("live again after its probe").containsExactly(CPU0);
      MeterWindow back = meter.open(Set.of(CPU0));
      clock.advanceMillis(50);
      assertThat(back.close(9)).isEqualTo(Energy.measured(750_000, 9));
    }
    meter.close();
  }

  // energy_uj read back as garbage mid-serve (empty, not a number, past a long, outside the range,
  // negative): the serve is the estimate and the counter says why; garbage is never energy. A sign
  // is not the kernel's (it writes digits only), so "-5" is a failed read, not a reset.
  @Test
  void window_whenEnergyFileTurnsToGarbageMidServe_isEstimatorSayingWhy() throws IOException {
    Path pkg = zone("intel-rapl:0", "package-0", 1_000);
    AtomicLong value = powered(pkg, 1_000, 15);
    Path energy = pkg.resolve("energy_uj");
    powered.remove(energy);
    java.util.concurrent.atomic.AtomicReference<String> garbage =
        new java.util.concurrent.atomic.AtomicReference<>();
    SysfsReader reader =
        file -> {
          if (!file.equals(energy)) {
            return SysfsReader.FILES.read(file);
          }
          String g = garbage.get();
          return g != null ? g : Long.toString(value.get());
        };
    CounterMeter meter = (CounterMeter) discover(reader).meter();
    java.util.Map<String, CounterIssue> cases =
        new java.util.LinkedHashMap<>(
            java.util.Map.of(
                "",
                CounterIssue.READ_FAILED,
                "12abc",
                CounterIssue.READ_FAILED,
                "99999999999999999999",
                CounterIssue.READ_FAILED,
                Long.toString(RANGE + 1),
                CounterIssue.COUNTER_RESET,
                "-5",
                CounterIssue.READ_FAILED));
    for (var c : cases.entrySet()) {
      assertThat(meter.liveDomains()).as(c.getKey()).containsExactly(CPU0);
      MeterWindow w = meter.open(Set.of(CPU0));
      clock.advanceMillis(50);
      garbage.set(c.getKey());
      assertThat(w.close(9)).as("'%s'", c.getKey()).isEqualTo(Energy.estimated(9));
      assertThat(meter.counters().getFirst().issue()).as(c.getKey()).contains(c.getValue());
      garbage.set(null);
      runReprobeOnceDue(meter);
    }
    assertThat(measuredOnCpu0(meter, 50)).as("15 W for 50 ms").hasValue(750_000);
    meter.close();
  }

  // Newer Intel parts publish the package counter twice: as an MSR zone (intel-rapl:<z>) and
  // through MMIO (intel-rapl-mmio:<z>). Only the MSR tree is read, so the package is not counted
  // twice.
  @Test
  void discover_whenMmioZoneRepublishesThePackage_countsThePackageOnce() throws IOException {
    Path pkg = zone("intel-rapl:0", "package-0", 1_000);
    Path mmio = zone("intel-rapl-mmio:0", "package-0", 1_000);
    powered(pkg, 1_000, 20, RANGE, mmio);
    MeterDiscovery found = discover(SysfsReader.FILES);
    assertThat(found.counters())
        .extracting(CounterStatus::counter)
        .containsExactly("rapl:intel-rapl:0");
    CounterMeter meter = (CounterMeter) found.meter();
    assertThat(measuredOnCpu0(meter, 100)).hasValue(2_000_000);
    meter.close();
  }

  /** What one window of {@code ms} on package 0 measures. */
  private java.util.OptionalLong measuredOnCpu0(CounterMeter meter, long ms) {
    MeterWindow w = meter.open(Set.of(CPU0));
    clock.advanceMillis(ms);
    return w.close(1).measuredUj();
  }

  // A range that lasts under a second at 1 kW would set the meter's wrap timer polling sysfs at
  // sub-second (for a range under 1 000 µJ, 1 ns) intervals for the life of the process.
  @Test
  void discover_whenRangeWrapsInUnderASecond_refusesTheZone() throws IOException {
    Path pkg = zone("intel-rapl:0", "package-0", 0, 999_999_999L);
    powered(pkg, 0, 15, 999_999_999L);
    MeterDiscovery found = discover(SysfsReader.FILES);
    assertThat(found.meter()).isInstanceOf(EstimatorMeter.class);
    assertThat(found.unreadableAdvice()).as("not a permission").isEmpty();
    assertThat(found.counters())
        .singleElement()
        .satisfies(
            s -> {
              assertThat(s.state()).isEqualTo(CounterState.UNAVAILABLE);
              assertThat(s.issue()).contains(CounterIssue.READ_FAILED);
              assertThat(s.detail()).contains("under a second");
            });
  }

  @Test
  void discover_whenRangeIsZeroOrGarbage_isReadFailedWithoutThePermissionAdvice()
      throws IOException {
    Path zero = zone("intel-rapl:0", "package-0", 0);
    Files.writeString(zero.resolve("max_energy_range_uj"), "0\n");
    Path garbage = zone("intel-rapl:1", "package-1", 0);
    Files.writeString(garbage.resolve("max_energy_range_uj"), "n/a\n");
    MeterDiscovery found = discover(SysfsReader.FILES);
    assertThat(found.counters())
        .hasSize(2)
        .allSatisfy(s -> assertThat(s.issue()).contains(CounterIssue.READ_FAILED))
        .as("a range of 0 is no range, not one that wraps too fast")
        .allSatisfy(
            s -> assertThat(s.detail()).startsWith("max_energy_range_uj ").doesNotContain("wrap"));
    assertThat(found.unreadableAdvice()).isEmpty();
  }

  @Test
  void discover_whenRangeLastsASecondAtOneKilowatt_usesTheZone() throws IOException {
    Path pkg = zone("intel-rapl:0", "package-0", 0, 1_000_000_000L);
    powered(pkg, 0, 15, 1_000_000_000L);
    assertThat(discover(SysfsReader.FILES).hardwareGraded()).isTrue();
  }

  @Test
  void raplChannel_boundsItsReadGapByTheRangeAtOneKilowatt() {
    RaplChannel c =
        new RaplChannel(
            "x", CPU0, root.resolve("energy_uj"), SMALL_RANGE, SysfsReader.FILES, clock);
    assertThat(c.maxReadGapNanos()).isEqualTo(65_532_610_000L); // 65.5 s
  }

  // Item 6: multi-die packages publish package-N-die-D zones.
  @Test
  void discover_whenPackageHasTwoDieZones_sumsThem() throws IOException {
    Path die0 = zone("intel-rapl:0", "package-0-die-0", 1_000);
    Path die1 = zone("intel-rapl:1", "package-0-die-1", 7_777);
    powered(die0, 1_000, 40);
    powered(die1, 7_777, 60);
    MeterDiscovery found = discover(SysfsReader.FILES);
    CounterMeter meter = (CounterMeter) found.meter();
    assertThat(meter.liveDomains()).containsExactly(CPU0);
    assertThat(measuredOnCpu0(meter, 100)).hasValue(100 * (40 + 60) * 1_000L);
    meter.close();
  }

  // The sum of two die zones advances when either die's counter does. A die whose counter is
  // frozen is a part of the package no live counter reads, and a figure over the package would
  // claim it (§3.3): every die must prove itself, at the probe and at every read after it.
  @Test
  void discover_whenOneDieZoneIsFrozen_thePackageIsNotLive() throws IOException {
    Path die0 = zone("intel-rapl:0", "package-0-die-0", 1_000);
    zone("intel-rapl:1", "package-0-die-1", 7_777);
    powered(die0, 1_000, 40);
    MeterDiscovery found = discover(SysfsReader.FILES);
    assertThat(found.hardwareGraded()).isFalse();
    assertThat(found.counters())
        .filteredOn(s -> s.domain().equals(Optional.of(CPU0)))
        .singleElement()
        .satisfies(s -> assertThat(s.issue()).contains(CounterIssue.FROZEN));
    assertThat(found.meter().open(Set.of(CPU0)).close(9)).isEqualTo(Energy.estimated(9));
  }

  @Test
  void window_whenOneDieZoneFreezesAfterTheProbe_isDemotedAndNotHwShunt() throws IOException {
    Path die0 = zone("intel-rapl:0", "package-0-die-0", 1_000);
    Path die1 = zone("intel-rapl:1", "package-0-die-1", 7_777);
    powered(die0, 1_000, 40);
    AtomicLong die1Value = powered(die1, 7_777, 60);
    CounterMeter meter = (CounterMeter) discover(SysfsReader.FILES).meter();
    assertThat(meter.liveDomains()).containsExactly(CPU0);
    powered.put(die1.resolve("energy_uj"), new AtomicLong(die1Value.get()));
    MeterWindow w = meter.open(Set.of(CPU0));
    clock.advanceMillis(100);
    assertThat(w.close(9)).isEqualTo(Energy.estimated(9));
    assertThat(meter.counters().getFirst().issue()).contains(CounterIssue.STALLED);
    meter.close();
  }

  @Test
  void discover_whenDieZonesMirrorOnePackageCounter_countsItOnce() throws IOException {
    Path die0 = zone("intel-rapl:0", "package-0-die-0", 5_000);
    Path die1 = zone("intel-rapl:1", "package-0-die-1", 5_000);
    powered(die0, 5_000, 68, RANGE, die1);
    MeterDiscovery found = discover(SysfsReader.FILES);
    CounterMeter meter = (CounterMeter) found.meter();
    assertThat(found.counters())
        .anySatisfy(
            s -> {
              assertThat(s.counter()).isEqualTo("rapl:intel-rapl:1");
              assertThat(s.detail()).contains("mirrors rapl:intel-rapl:0");
            });
    assertThat(measuredOnCpu0(meter, 100)).as("68 W, not 136 W").hasValue(100 * 68 * 1_000L);
    meter.close();
  }

  // One counter published under two packages' zones (moving together, equal to the microjoule)
  // reads neither package alone: a serve on both was counted twice, a serve on one was charged the
  // other's energy, each graded a reading. Neither zone is used.
  @Test
  void discover_whenTwoPackagesPublishOneCounter_usesNeither() throws IOException {
    Path p0 = zone("intel-rapl:0", "package-0", 5_000);
    Path p1 = zone("intel-rapl:1", "package-1", 5_000);
    powered(p0, 5_000, 68, RANGE, p1);
    MeterDiscovery found = discover(SysfsReader.FILES);
    MeterWindow w = found.meter().open(Set.of(CPU0, EnergyDomain.cpuPackage(1)));
    clock.advanceMillis(100);
    assertThat(w.close(9)).as("6.8 J drawn").isEqualTo(Energy.estimated(9));
    assertThat(found.counters())
        .filteredOn(s -> s.issue().equals(Optional.of(CounterIssue.NOT_A_DOMAIN)))
        .extracting(CounterStatus::counter)
        .containsExactlyInAnyOrder("rapl:intel-rapl:0", "rapl:intel-rapl:1");
    if (found.meter() instanceof CounterMeter meter) {
      meter.close();
    }
  }

  // A read that fails once while two packages' zones are compared (an EIO, as the driver answers
  // when a register read fails) made them distinct: both were used, and a serve on both counted
  // the one counter twice. A failed read is tried again within the same tries.
  @Test
  void discover_whenAReadFailsOnceWhileTwoPackagesAreCompared_stillUsesNeither()
      throws IOException {
    Path p0 = zone("intel-rapl:0", "package-0", 5_000);
    Path p1 = zone("intel-rapl:1", "package-1", 5_000);
    powered(p0, 5_000, 68, RANGE, p1);
    boolean[] failed = {false};
    clock.onAdvance(
        nanos -> {
          // The first move of the clock is the comparison's wait between its two readings.
          if (!failed[0]) {
            failed[0] = true;
            energyReadsFailing.set(1);
          }
        });
    MeterDiscovery found = discover(SysfsReader.FILES);
    MeterWindow w = found.meter().open(Set.of(CPU0, EnergyDomain.cpuPackage(1)));
    clock.advanceMillis(100);
    assertThat(w.close(9)).as("6.8 J drawn").isEqualTo(Energy.estimated(9));
    if (found.meter() instanceof CounterMeter meter) {
      meter.close();
    }
  }

  // A die zone that cannot be used leaves its package read by the other die alone: package 0's
  // second die publishing package 1's counter, or failing its read at discovery, made every serve
  // on package 0 a hardware figure of half the package. A domain is read only from all its zones.
  @Test
  void discover_whenADieOfAPackagePublishesAnotherPackagesCounter_usesNoneOfThePackage()
      throws IOException {
    Path die0 = zone("intel-rapl:0", "package-0-die-0", 1_000);
    Path die1 = zone("intel-rapl:1", "package-0-die-1", 5_000);
    Path p1 = zone("intel-rapl:2", "package-1", 5_000);
    powered(die0, 1_000, 40);
    powered(die1, 5_000, 68, RANGE, p1);
    MeterDiscovery found = discover(SysfsReader.FILES);
    MeterWindow w = found.meter().open(Set.of(CPU0));
    clock.advanceMillis(100);
    assertThat(w.close(9)).as("die 0 alone, 4 J of 10.8 J").isEqualTo(Energy.estimated(9));
    assertThat(found.counters())
        .filteredOn(s -> s.counter().equals("rapl:intel-rapl:0"))
        .singleElement()
        .satisfies(
            s -> {
              assertThat(s.issue()).contains(CounterIssue.NOT_A_DOMAIN);
              assertThat(s.detail()).contains("rapl:intel-rapl:1");
            });
    if (found.meter() instanceof CounterMeter meter) {
      meter.close();
    }
  }

  @Test
  void discover_whenADieZoneCannotBeReadAtDiscovery_usesNoneOfThePackage() throws IOException {
    Path die0 = zone("intel-rapl:0", "package-0-die-0", 1_000);
    Path die1 = zone("intel-rapl:1", "package-0-die-1", 5_000);
    powered(die0, 1_000, 40);
    Path die1Energy = die1.resolve("energy_uj");
    SysfsReader die1Denied =
        file -> {
          if (file.equals(die1Energy)) {
            throw new AccessDeniedException(file.toString());
          }
          return SysfsReader.FILES.read(file);
        };
    MeterDiscovery found = discover(die1Denied);
    assertThat(found.hardwareGraded()).isFalse();
    assertThat(found.meter().open(Set.of(CPU0)).close(9)).isEqualTo(Energy.estimated(9));
  }

  /** The tree's files, but {@code zone}'s name file fails to read. */
  private static SysfsReader nameUnreadable(Path zone) {
    Path name = zone.resolve("name");
    return file -> {
      if (file.equals(name)) {
        throw new IOException("Input/output error");
      }
      return SysfsReader.FILES.read(file);
    };
  }

  @Test
  void discover_whenADieZoneNameCannotBeRead_usesNoneOfTheDiePackages() throws IOException {
    // The zone whose name cannot be read may be the missing die of either package: each is read
    // from its die zones, so neither is read from the dies that did name themselves.
    Path die0 = zone("intel-rapl:0", "package-0-die-0", 1_000);
    Path die1 = zone("intel-rapl:1", "package-0-die-1", 5_000);
    Path p1die0 = zone("intel-rapl:2", "package-1-die-0", 9_000);
    powered(die0, 1_000, 40);
    powered(die1, 5_000, 30);
    powered(p1die0, 9_000, 20);
    MeterDiscovery found = discover(nameUnreadable(die1));
    assertThat(found.hardwareGraded()).isFalse();
    assertThat(found.counters())
        .filteredOn(s -> s.domain().isPresent())
        .allSatisfy(s -> assertThat(s.issue()).contains(CounterIssue.NOT_A_DOMAIN))
        .extracting(CounterStatus::counter)
        .containsExactlyInAnyOrder("rapl:intel-rapl:0", "rapl:intel-rapl:2");
    assertThat(found.counters())
        .filteredOn(s -> s.counter().equals("rapl:intel-rapl:1"))
        .singleElement()
        .satisfies(s -> assertThat(s.issue()).as(s.detail()).contains(CounterIssue.READ_FAILED));
    assertThat(found.unreadableAdvice())
        .as("an EIO on a name is no matter of read access")
        .isEmpty();
    MeterWindow w = found.meter().open(Set.of(CPU0));
    clock.advanceMillis(100);
    assertThat(w.close(9)).isEqualTo(Energy.estimated(9));
  }

  @Test
  void discover_whenADramZoneNameCannotBeRead_usesNoDieDram_butStillUsesThePackage()
      throws IOException {
    // A sub-zone is never a package: an unnamed one may be a die's DRAM, not a die.
    Path die0 = zone("intel-rapl:0", "package-0-die-0", 1_000);
    Path dram0 = zone("intel-rapl:0:0", "dram", 100);
    Path die1 = zone("intel-rapl:1", "package-0-die-1", 5_000);
    Path dram1 = zone("intel-rapl:1:0", "dram", 200);
    powered(die0, 1_000, 40);
    powered(dram0, 100, 4);
    powered(die1, 5_000, 30);
    powered(dram1, 200, 3);
    MeterDiscovery found = discover(nameUnreadable(dram1));
    CounterMeter meter = (CounterMeter) found.meter();
    assertThat(meter.liveDomains()).containsExactly(CPU0);
    assertThat(found.counters())
        .filteredOn(s -> s.counter().equals("rapl:intel-rapl:0:0"))
        .singleElement()
        .satisfies(s -> assertThat(s.detail()).startsWith("may read only part of dram:0"));
    meter.close();
  }

  @Test
  void discover_whenAZoneNameCannotBeRead_stillUsesAPackageNamedWhole() throws IOException {
    // A package the kernel names without a die has one zone (it names every zone by die where
    // packages have several): an unnamed zone cannot be a part of it.
    Path p0 = zone("intel-rapl:0", "package-0", 1_000);
    Path unnamed = zone("intel-rapl:1", "psys", 5_000);
    powered(p0, 1_000, 40);
    powered(unnamed, 5_000, 30);
    MeterDiscovery found = discover(nameUnreadable(unnamed));
    assertThat(found.hardwareGraded()).isTrue();
    MeterWindow w = found.meter().open(Set.of(CPU0));
    clock.advanceMillis(100);
    assertThat(w.close(9).measuredUj()).hasValue(4_000_000L);
    ((CounterMeter) found.meter()).close();
  }

  // Issue 13 item 6: on two sockets a serve is HwShunt only when every declared package (and the
  // DRAM of each, where it has a counter) is live and covered.
  private static final EnergyDomain CPU1 = EnergyDomain.cpuPackage(1);
  private static final Set<EnergyDomain> BOTH_PACKAGES = Set.of(CPU0, CPU1);

  private void twoSockets(boolean package1Frozen, boolean dram1Frozen) throws IOException {
    Path p0 = zone("intel-rapl:0", "package-0", 0);
    Path d0 = zone("intel-rapl:0:0", "dram", 0);
    Path p1 = zone("intel-rapl:1", "package-1", 0);
    Path d1 = zone("intel-rapl:1:0", "dram", 0);
    powered(p0, 0, 100);
    powered(d0, 0, 10);
    if (!package1Frozen) {
      powered(p1, 0, 90);
    }
    if (!dram1Frozen) {
      powered(d1, 0, 9);
    }
  }

  @Test
  void twoSockets_whenEveryPackageAndDramIsLive_isHwShuntOverAllFour() throws IOException {
    twoSockets(false, false);
    CounterMeter meter = (CounterMeter) discover(SysfsReader.FILES).meter();
    assertThat(meter.liveDomains())
        .containsExactlyInAnyOrder(CPU0, DRAM0, CPU1, EnergyDomain.dram(1));
    MeterWindow w = meter.open(BOTH_PACKAGES);
    clock.advanceMillis(100);
    Energy e = w.close(1);
    assertThat(e.provenance()).isEqualTo(Provenance.HwShunt);
    assertThat(e.measuredUj()).hasValue(100 * (100 + 10 + 90 + 9) * 1_000L);
    meter.close();
  }

  @Test
  void twoSockets_whenSecondPackageIsFrozen_isEstimator() throws IOException {
    twoSockets(true, false);
    CounterMeter meter = (CounterMeter) discover(SysfsReader.FILES).meter();
    MeterWindow w = meter.open(BOTH_PACKAGES);
    clock.advanceMillis(100);
    assertThat(w.close(1).provenance()).isEqualTo(Provenance.Estimator);
    meter.close();
  }

  @Test
  void twoSockets_whenSecondPackagesDramIsFrozen_isEstimator() throws IOException {
    twoSockets(false, true);
    CounterMeter meter = (CounterMeter) discover(SysfsReader.FILES).meter();
    MeterWindow w = meter.open(BOTH_PACKAGES);
    clock.advanceMillis(100);
    assertThat(w.close(1).provenance()).isEqualTo(Provenance.Estimator);
    meter.close();
  }

  @Test
  void twoSockets_whenOnlyTheFirstPackageHasAZone_isEstimator() throws IOException {
    Path p0 = zone("intel-rapl:0", "package-0", 0);
    powered(p0, 0, 100);
    CounterMeter meter = (CounterMeter) discover(SysfsReader.FILES).meter();
    MeterWindow w = meter.open(BOTH_PACKAGES);
    clock.advanceMillis(100);
    assertThat(w.close(1).provenance()).isEqualTo(Provenance.Estimator);
    clock.advanceMillis(10); // w's serve is published (BackToBackWindowTest)
    MeterWindow onlyFirst = meter.open(Set.of(CPU0));
    clock.advanceMillis(100);
    assertThat(onlyFirst.close(1).provenance()).isEqualTo(Provenance.HwShunt);
    meter.close();
  }

  // Item 7: a non-root host gets one WARN line saying why and how to grant access.
  @Test
  void discover_whenZonesAreRootOnly_warnsOnceWithTheWayOut() throws IOException {
    zone("intel-rapl:0", "package-0", 1);
    zone("intel-rapl:1", "package-1", 1);
    SysfsReader rootOnly =
        file -> {
          if (file.getFileName().toString().equals("energy_uj")) {
            throw new AccessDeniedException(file.toString());
          }
          return SysfsReader.FILES.read(file);
        };
    java.io.PrintStream err = System.err;
    java.io.ByteArrayOutputStream captured = new java.io.ByteArrayOutputStream();
    System.setErr(new java.io.PrintStream(captured, true, java.nio.charset.StandardCharsets.UTF_8));
    try {
      discover(rootOnly);
    } finally {
      System.setErr(err);
    }
    String log = captured.toString(java.nio.charset.StandardCharsets.UTF_8);
    List<String> lines = log.lines().filter(l -> l.contains("CVE-2020-8694")).toList();
    assertThat(lines).as(log).hasSize(1);
    assertThat(lines.getFirst()).contains("WARN").contains("udev").contains("Estimator");
  }

  @Test
  void discover_whenEnergyFileIsGarbage_isUnavailable() throws IOException {
    Path pkg = zone("intel-rapl:0", "package-0", 0);
    Files.writeString(pkg.resolve("energy_uj"), "not a number\n");
    MeterDiscovery found = discover(SysfsReader.FILES);
    assertThat(found.counters().getFirst().issue()).contains(CounterIssue.READ_FAILED);
    assertThat(found.meter()).isInstanceOf(EstimatorMeter.class);
  }

  @Test
  void discover_whenDieZonesReadAlikeButWrapAtDifferentRanges_sumsThem() throws IOException {
    // Two distinct counters may read the same at discovery; a mirror is one counter published
    // twice, so it has the same range too.
    Path die0 = zone("intel-rapl:0", "package-0-die-0", 5_000);
    Path die1 = zone("intel-rapl:1", "package-0-die-1", 5_000, SMALL_RANGE);
    powered(die0, 5_000, 40);
    powered(die1, 5_000, 60, SMALL_RANGE);
    MeterDiscovery found = discover(SysfsReader.FILES);
    CounterMeter meter = (CounterMeter) found.meter();
    assertThat(found.counters()).noneSatisfy(s -> assertThat(s.detail()).contains("mirrors"));
    assertThat(measuredOnCpu0(meter, 100)).hasValue(100 * (40 + 60) * 1_000L);
    meter.close();
  }

  @Test
  void discover_whenADieZoneFailsWhileComparedForMirrors_isNotDroppedAsAMirror()
      throws IOException {
    // Dropping it would meter the package from the other die alone, as a hardware figure.
    Path die0 = zone("intel-rapl:0", "package-0-die-0", 5_000);
    Path die1 = zone("intel-rapl:1", "package-0-die-1", 5_000);
    powered(die0, 5_000, 40);
    Path die1Energy = die1.resolve("energy_uj");
    int[] die1Reads = {0};
    SysfsReader die1FailsAfterItsFirstRead =
        file -> {
          if (file.equals(die1Energy) && ++die1Reads[0] > 1) {
            throw new AccessDeniedException(file.toString());
          }
          return SysfsReader.FILES.read(file);
        };
    MeterDiscovery found = discover(die1FailsAfterItsFirstRead);
    assertThat(found.counters()).noneSatisfy(s -> assertThat(s.detail()).contains("mirrors"));
    assertThat(found.hardwareGraded()).isFalse();
    assertThat(found.meter().open(Set.of(CPU0)).close(9)).isEqualTo(Energy.estimated(9));
  }

  @Test
  void discover_mapsDramToThePackageItsZoneNames_notToTheZonesNumber() throws IOException {
    zone("intel-rapl:0", "package-1", 0);
    zone("intel-rapl:0:0", "dram", 0);
    List<CounterStatus> refused = new ArrayList<>();
    assertThat(domainsFound(refused))
        .containsExactly(EnergyDomain.cpuPackage(1), EnergyDomain.dram(1));
    assertThat(refused).isEmpty();
  }

  /**
   * The domains RAPL discovery finds under {@link #root}, adding what it refuses to {@code
   * refused}.
   */
  private List<EnergyDomain> domainsFound(List<CounterStatus> refused) {
    List<EnergyChannel> found = new ArrayList<>();
    RaplDiscovery.discover(root, SysfsReader.FILES, clock, found, refused);
    return found.stream().map(EnergyChannel::domain).toList();
  }
}
