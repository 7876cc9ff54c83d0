package org.meshjava.energy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A zone that has no {@code energy_uj} at all is said to publish no energy counter ({@link
 * CounterIssue#NOT_PRESENT}), and discovery gives no advice on granting read access for it: the
 * advice (the file is root-only since the fix for CVE-2020-8694) can make no missing file appear. A
 * zone whose {@code energy_uj} is denied still gets that advice. A fake powercap tree.
 */
class RaplEnergyFileMissingTest {
  @TempDir Path root;
  private final FakeClock clock = new FakeClock();
  private final List<Runnable> reprobes = new ArrayList<>();

  /** A package zone with its name and range; its {@code energy_uj} only if {@code withEnergy}. */
  private Path zone(boolean withEnergy) throws IOException {
    Path z = Files.createDirectories(root.resolve("intel-rapl:0"));
    Files.writeString(z.resolve("name"), "package-0\n");
    Files.writeString(z.resolve("max_energy_range_uj"), "262143328850\n");
    if (withEnergy) {
      Files.writeString(z.resolve("energy_uj"), "1000\n");
    }
    return z;
  }

  private MeterDiscovery discover(SysfsReader reader) {
    DiscoveryOptions options =
        DiscoveryOptions.defaults().withRaplRoot(root).withoutNvml().withoutIoReport();
    return MeterDiscovery.discover(options, clock, reprobes::add, reader, "Linux");
  }

  @Test
  void aZoneWithoutEnergyUj_isSaidToHaveNoCounter_withoutAccessAdvice() throws IOException {
    zone(false);

    MeterDiscovery found = discover(SysfsReader.FILES);

    assertThat(found.counters())
        .singleElement()
        .satisfies(
            s -> {
              assertThat(s.issue()).contains(CounterIssue.NOT_PRESENT);
              assertThat(s.detail())
                  .contains("energy_uj does not exist")
                  .contains("publishes no energy counter");
            });
    assertThat(MeterDiscovery.unreadableAdvice(found.counters())).isEmpty();
  }

  @Test
  void aZoneWhoseEnergyUjIsDenied_stillGetsTheAccessAdvice() throws IOException {
    Path energy = zone(true).resolve("energy_uj");

    MeterDiscovery found =
        discover(
            file -> {
              if (file.equals(energy)) {
                throw new AccessDeniedException(file.toString());
              }
              return SysfsReader.FILES.read(file);
            });

    assertThat(found.counters())
        .singleElement()
        .satisfies(
            s -> {
              assertThat(s.issue()).contains(CounterIssue.UNREADABLE);
              assertThat(s.detail()).contains("is not readable by this process");
            });
    assertThat(MeterDiscovery.unreadableAdvice(found.counters()))
        .hasValueSatisfying(
            advice ->
                assertThat(advice)
                    .contains("[rapl:intel-rapl:0]")
                    .contains("CVE-2020-8694")
                    .contains("grant read access"));
  }
}
