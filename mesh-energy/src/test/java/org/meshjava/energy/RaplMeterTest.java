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
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.core.Energy;
import org.meshjava.core.EnergyDomain;
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
    Path z = Files.createDirectories(root.resolve(dir));
    Files.writeString(z.resolve("name"), name + "\n");
    Files.writeString(z.resolve("max_energy_range_uj"), RANGE + "\n");
    Files.writeString(z.resolve("energy_uj"), energy + "\n");
    return z;
  }

  /** Makes a zone's counter run at {@code watts} as fake time passes, wrapping to 0 at the range. */
  private AtomicLong powered(Path zone, long start, long watts) {
    AtomicLong value = new AtomicLong(start);
    clock.onAdvance(
        nanos -> {
          long next = (value.get() + nanos * watts / 1_000) % RANGE;
          value.set(next);
          write(zone, next);
        });
    return value;
  }

  private static void write(Path zone, long value) {
    try {
      Files.writeString(zone.resolve("energy_uj"), value + "\n");
    } catch (IOException e) {
      throw new AssertionError(e);
    }
  }

  private MeterDiscovery discover(SysfsReader reader) {
    DiscoveryOptions options = DiscoveryOptions.defaults().withRaplRoot(root).withoutNvml().withoutIoReport();
    return MeterDiscovery.discover(options, clock, reprobes::add, reader, "Linux");
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
    clock.advanceMillis(10);
    Energy e = w.close(77);
    assertThat(e.provenance()).isEqualTo(Provenance.HwShunt);
    assertThat(e.measuredUj())
        .hasValue((pkgValue.get() - pkgBefore) + (dramValue.get() - dramBefore))
        .hasValue(150_000 + 20_000);
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
  void discover_whenEnergyFileModeIsRootOnlyAndWeAreNotRoot_isUnreadable() throws IOException {
    assumeFalse(
        "root".equals(System.getProperty("user.name")),
        "running as root, for whom mode 0400 denies nothing; the scripted-reader test covers it");
    Path pkg = zone("intel-rapl:0", "package-0", 1);
    Files.setPosixFilePermissions(pkg.resolve("energy_uj"), PosixFilePermissions.fromString("---------"));
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
    List<EnergyChannel> found = new ArrayList<>();
    List<CounterStatus> refused = new ArrayList<>();
    RaplDiscovery.discover(root, SysfsReader.FILES, found, refused);
    assertThat(found)
        .extracting(EnergyChannel::domain)
        .containsExactly(EnergyDomain.cpuPackage(1), EnergyDomain.dram(1));
    assertThat(refused)
        .extracting(CounterStatus::counter)
        .containsExactlyInAnyOrder("rapl:intel-rapl:1:0", "rapl:intel-rapl:2");
    assertThat(refused).allSatisfy(s -> assertThat(s.issue()).contains(CounterIssue.NOT_A_DOMAIN));
  }

  @Test
  void discover_whenEnergyFileIsGarbage_isUnavailable() throws IOException {
    Path pkg = zone("intel-rapl:0", "package-0", 0);
    Files.writeString(pkg.resolve("energy_uj"), "not a number\n");
    MeterDiscovery found = discover(SysfsReader.FILES);
    assertThat(found.counters().getFirst().issue()).contains(CounterIssue.READ_FAILED);
    assertThat(found.meter()).isInstanceOf(EstimatorMeter.class);
  }
}
