package org.meshjava.energy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.core.EnergyDomain;

/**
 * One zone's file that fails for good at discovery (a name read that keeps failing with EIO) does
 * not spend the retry budget every other zone's passing failure needs: each RAPL read is tried at
 * most {@link MomentaryRetry#SYSFS_TRIES} times. Before, the broken name took the whole 2 s, and
 * package 1's first energy_uj read, failing once, was refused at its first try, the package lost
 * until a restart. Fake time, no sleeps.
 */
class RaplRetryBudgetTest {
  private static final long RANGE = 262_143_328_850L;

  @TempDir Path root;

  private final FakeClock clock = new FakeClock();
  private final List<EnergyChannel> found = new ArrayList<>();
  private final List<CounterStatus> rejected = new ArrayList<>();

  private Path zone(String dir, String name) throws IOException {
    Path z = Files.createDirectories(root.resolve(dir));
    Files.writeString(z.resolve("name"), name + "\n");
    Files.writeString(z.resolve("max_energy_range_uj"), RANGE + "\n");
    Files.writeString(z.resolve("energy_uj"), "1000\n");
    return z;
  }

  @Test
  void aNameFailingForGood_leavesTheBudgetToAnotherZonesPassingFailure() throws IOException {
    Path brokenName = zone("intel-rapl:0", "package-0").resolve("name");
    Path energy = zone("intel-rapl:1", "package-1").resolve("energy_uj");
    AtomicInteger energyFailures = new AtomicInteger(1);
    SysfsReader reader =
        file -> {
          if (file.equals(brokenName)
              || (file.equals(energy) && energyFailures.getAndDecrement() > 0)) {
            throw new IOException("Input/output error");
          }
          return SysfsReader.FILES.read(file);
        };
    long start = clock.nanoTime();
    RaplDiscovery.discover(root, reader, clock, found, rejected);

    assertThat(found)
        .as("package 1, its first read tried again: %s", rejected)
        .extracting(EnergyChannel::domain)
        .containsExactly(EnergyDomain.cpuPackage(1));
    assertThat(rejected)
        .singleElement()
        .satisfies(s -> assertThat(s.detail()).contains("still after 4 tries"));
    assertThat(clock.nanoTime() - start).isLessThan(MomentaryRetry.BUDGET_NANOS);
  }
}
