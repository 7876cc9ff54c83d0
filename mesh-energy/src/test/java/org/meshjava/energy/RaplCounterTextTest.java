package org.meshjava.energy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongFunction;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.core.EnergyDomain;
import org.meshjava.core.Provenance;

/**
 * What a powercap zone's two files may hold besides the kernel's digits, as discovery reads them:
 * the kernel writes {@code energy_uj} and {@code max_energy_range_uj} as unsigned decimals ({@code
 * %llu}), so anything else is not the counter, and is refused naming what the file holds (SPEC.md
 * 40 §1). The values are served through the reader seam; the counter runs at 20 W in fake time.
 */
class RaplCounterTextTest {
  private static final long RANGE = 262_143_328_850L;
  private static final EnergyDomain CPU0 = EnergyDomain.cpuPackage(0);

  @TempDir Path root;
  private final FakeClock clock = new FakeClock();
  private final List<Runnable> reprobes = new ArrayList<>();

  /** Discovers one package zone whose files hold what the two functions make of the counter. */
  private MeterDiscovery discover(LongFunction<String> energyText, String rangeText)
      throws IOException {
    Path zone = Files.createDirectories(root.resolve("intel-rapl:0"));
    Files.writeString(zone.resolve("name"), "package-0\n");
    AtomicLong uj = new AtomicLong(1_000);
    clock.onAdvance(nanos -> uj.addAndGet(nanos * 20 / 1_000));
    SysfsReader reader =
        file ->
            switch (file.getFileName().toString()) {
              case "energy_uj" -> energyText.apply(uj.get());
              case "max_energy_range_uj" -> rangeText;
              default -> SysfsReader.FILES.read(file);
            };
    DiscoveryOptions options =
        DiscoveryOptions.defaults().withRaplRoot(root).withoutNvml().withoutIoReport();
    return clock.watch(MeterDiscovery.discover(options, clock, reprobes::add, reader, "Linux"));
  }

  private static CounterStatus only(MeterDiscovery found) {
    assertThat(found.counters()).hasSize(1);
    return found.counters().getFirst();
  }

  private void assertRefused(MeterDiscovery found, String... detailParts) {
    CounterStatus s = only(found);
    assertThat(s.state()).isEqualTo(CounterState.UNAVAILABLE);
    assertThat(s.issue()).contains(CounterIssue.READ_FAILED);
    assertThat(s.detail()).contains(detailParts).doesNotContain("java.lang");
    assertThat(found.meter()).isInstanceOf(EstimatorMeter.class);
  }

  @Test
  void energyWithASign_isRefusedNotReadAsTheNumber() throws IOException {
    assertRefused(discover(uj -> "+" + uj, Long.toString(RANGE)), "'+1000'", "digits only");
  }

  @Test
  void energyWithAMinusSign_isRefusedAtDiscovery_notCalledAReset() throws IOException {
    assertRefused(discover(uj -> "-" + uj, Long.toString(RANGE)), "'-1000'", "digits only");
  }

  @Test
  void energyInAnotherScriptsDigits_isRefused() throws IOException {
    assertRefused(discover(uj -> "١٠٠٠", Long.toString(RANGE)), "digits only");
  }

  @Test
  void energyOfTwentyOneDigits_isSaidToBeTooLarge_notNotANumber() throws IOException {
    assertRefused(
        discover(uj -> "123456789012345678901", Long.toString(RANGE)),
        "21 digits",
        "more than the 9223372036854775807");
  }

  @Test
  void emptyEnergyFile_isSaidToBeEmpty() throws IOException {
    assertRefused(discover(uj -> "", Long.toString(RANGE)), "energy_uj is empty");
  }

  @Test
  void energyAboveTheZonesOwnRange_isRefusedAtDiscovery() throws IOException {
    assertRefused(
        discover(uj -> Long.toString(RANGE + 5), Long.toString(RANGE)),
        "above its max_energy_range_uj " + RANGE);
  }

  @Test
  void energyAtTheRangeItself_isAReading() throws IOException {
    MeterDiscovery found = discover(uj -> Long.toString(RANGE), Long.toString(RANGE));
    assertThat(only(found).issue()).as("read, but never moves").contains(CounterIssue.FROZEN);
  }

  @Test
  void leadingZeros_areStillTheNumber() throws IOException {
    MeterDiscovery found = discover(uj -> "000000" + uj, Long.toString(RANGE));
    CounterMeter meter = (CounterMeter) found.meter();
    MeterWindow w = meter.open(Set.of(CPU0));
    clock.advanceMillis(50);
    assertThat(w.close(1).measuredUj()).as("20 W for 50 ms").hasValue(1_000_000);
    meter.close();
  }

  @Test
  void rangeWithASign_isRefused() throws IOException {
    assertRefused(
        discover(Long::toString, "+" + RANGE), "max_energy_range_uj holds '+", "digits only");
  }

  @Test
  void rangeOfZero_orEmpty_orTooLarge_isRefusedInWords() throws IOException {
    assertRefused(discover(Long::toString, "0"), "max_energy_range_uj is 0");
    root = Files.createTempDirectory(root, "empty");
    assertRefused(discover(Long::toString, ""), "max_energy_range_uj is empty");
    root = Files.createTempDirectory(root, "large");
    assertRefused(
        discover(Long::toString, "99999999999999999999"), "max_energy_range_uj holds 9999");
  }

  /**
   * The driver publishes the 32-bit status register's largest value times the energy unit, and the
   * coarsest unit its field states is 1 J: a range above (2^32 − 1) J is no RAPL counter's, and the
   * wrap step derived from it (2.1 kJ at 2^63 − 1) would make a wrap read soon a reset, and one
   * read later 2.1 kJ too much.
   */
  @Test
  void rangeAboveWhatTheStatusRegisterHoldsAtOneJoule_isRefused() throws IOException {
    assertRefused(
        discover(Long::toString, Long.toString(Long.MAX_VALUE)),
        "max_energy_range_uj is " + Long.MAX_VALUE,
        "no RAPL counter's range");
    root = Files.createTempDirectory(root, "justAbove");
    assertRefused(
        discover(Long::toString, Long.toString(RaplChannel.MAX_RANGE_UJ + 1)),
        "more than the 4294967295000000 µJ");
  }

  @Test
  void rangeOfTheRegisterAtOneJoule_isStillARange() throws IOException {
    MeterDiscovery found = discover(Long::toString, Long.toString(RaplChannel.MAX_RANGE_UJ));
    assertThat(only(found).state()).isEqualTo(CounterState.LIVE);
    ((CounterMeter) found.meter()).close();
  }

  @Test
  void rangeOfOne_isRefusedAsTooShortToRead() throws IOException {
    assertRefused(discover(uj -> "0", "1"), "under a second");
  }

  @Test
  void energyInTheRealFileWithSurroundingWhiteSpace_isTheNumber()
      throws IOException, CounterException {
    Path zone = Files.createDirectories(root.resolve("intel-rapl:0"));
    Files.writeString(zone.resolve("name"), "package-0\n");
    Files.writeString(zone.resolve("max_energy_range_uj"), " " + RANGE + "\n");
    Files.writeString(zone.resolve("energy_uj"), " \t1000 \n");
    assertThat(
            new RaplChannel("z", CPU0, zone.resolve("energy_uj"), RANGE, SysfsReader.FILES, clock)
                .readRaw())
        .isEqualTo(1_000);
    MeterDiscovery found =
        MeterDiscovery.discover(
            DiscoveryOptions.defaults().withRaplRoot(root).withoutNvml().withoutIoReport(),
            clock,
            reprobes::add,
            SysfsReader.FILES,
            "Linux");
    assertThat(only(found).issue())
        .as("read, but the file never moves")
        .contains(CounterIssue.FROZEN);
    assertThat(found.meter().open(Set.of(CPU0)).close(1).provenance())
        .isEqualTo(Provenance.Estimator);
  }
}
