package org.meshjava.energy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.core.EnergyDomain;

/**
 * A zone's name file whose read fails for the moment (an EIO once open) at discovery is read again,
 * as its {@code energy_uj} is: discovery looks once, and a name left unread refuses every package
 * read from die zones for the life of the process. A name file that cannot be opened is not read
 * again. A name that stays unread refuses what the zone may be a part of, and no more. Fake time,
 * no sleeps.
 */
class RaplNameReadRetryTest {
  private static final long RANGE = 262_143_328_850L;

  @TempDir Path root;

  private final FakeClock clock = new FakeClock();
  private final List<EnergyChannel> found = new ArrayList<>();
  private final List<CounterStatus> rejected = new ArrayList<>();

  private Path zone(String dir, String name, long energy) throws IOException {
    Path z = Files.createDirectories(root.resolve(dir));
    Files.writeString(z.resolve("name"), name + "\n");
    Files.writeString(z.resolve("max_energy_range_uj"), RANGE + "\n");
    Files.writeString(z.resolve("energy_uj"), energy + "\n");
    return z;
  }

  /** The tree's files, but {@code zone}'s name file fails {@code times} times with {@code e}. */
  private static SysfsReader nameFails(Path zone, int times, IOException e) {
    Path name = zone.resolve("name");
    AtomicInteger left = new AtomicInteger(times);
    return file -> {
      if (file.equals(name) && left.getAndDecrement() > 0) {
        throw e;
      }
      return SysfsReader.FILES.read(file);
    };
  }

  /** Discovers package 0's two die zones while die 1's name fails once with {@code e}. */
  private void discoverWhileDie1NameFailsOnce(IOException e) throws IOException {
    zone("intel-rapl:0", "package-0-die-0", 1_000);
    Path die1 = zone("intel-rapl:1", "package-0-die-1", 5_000);
    RaplDiscovery.discover(root, nameFails(die1, 1, e), clock, found, rejected);
  }

  @Test
  void aDieNameWhoseReadFailsOnce_isReadAgain_andItsPackageIsRead() throws IOException {
    discoverWhileDie1NameFailsOnce(new IOException("Input/output error"));
    assertThat(rejected).isEmpty();
    assertThat(found)
        .singleElement()
        .satisfies(c -> assertThat(c.domain()).isEqualTo(EnergyDomain.cpuPackage(0)));
  }

  @Test
  void aNameFileThatCannotBeOpened_isNotReadAgain() throws IOException {
    discoverWhileDie1NameFailsOnce(new NoSuchFileException("name"));
    assertThat(found).isEmpty();
    assertThat(rejected)
        .filteredOn(s -> s.counter().equals("rapl:intel-rapl:1"))
        .singleElement()
        .satisfies(s -> assertThat(s.issue()).contains(CounterIssue.UNREADABLE));
  }

  @Test
  void anUnnamedDramZone_refusesOnlyTheDramOfThePackageItsZoneNames() throws IOException {
    // Two sockets of two dies, each die with its DRAM: package 1's die 1 DRAM zone stays unnamed.
    // A sub-zone is DRAM of the package its zone names, so package 0's DRAM is whole.
    zone("intel-rapl:0", "package-0-die-0", 1_000);
    zone("intel-rapl:0:0", "dram", 100);
    zone("intel-rapl:1", "package-0-die-1", 2_000);
    zone("intel-rapl:1:0", "dram", 200);
    zone("intel-rapl:2", "package-1-die-0", 3_000);
    zone("intel-rapl:2:0", "dram", 300);
    zone("intel-rapl:3", "package-1-die-1", 4_000);
    Path unnamed = zone("intel-rapl:3:0", "dram", 400);
    RaplDiscovery.discover(
        root,
        nameFails(unnamed, Integer.MAX_VALUE, new IOException("Input/output error")),
        clock,
        found,
        rejected);
    assertThat(found)
        .extracting(EnergyChannel::domain)
        .containsExactlyInAnyOrder(
            EnergyDomain.cpuPackage(0), EnergyDomain.cpuPackage(1), EnergyDomain.dram(0));
    assertThat(rejected)
        .filteredOn(s -> s.issue().equals(Optional.of(CounterIssue.NOT_A_DOMAIN)))
        .extracting(CounterStatus::counter)
        .containsExactly("rapl:intel-rapl:2:0");
  }
}
