package org.meshjava.energy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
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

  /**
   * The tree's files, but each of {@code zones}' name files fails {@code times} times with {@code
   * e}.
   */
  private static SysfsReader nameFails(int times, IOException e, Path... zones) {
    Map<Path, AtomicInteger> left = new HashMap<>();
    for (Path zone : zones) {
      left.put(zone.resolve("name"), new AtomicInteger(times));
    }
    return file -> {
      AtomicInteger n = left.get(file);
      if (n != null && n.getAndDecrement() > 0) {
        throw e;
      }
      return SysfsReader.FILES.read(file);
    };
  }

  /** Discovers package 0's two die zones while die 1's name fails once with {@code e}. */
  private void discoverWhileDie1NameFailsOnce(IOException e) throws IOException {
    zone("intel-rapl:0", "package-0-die-0", 1_000);
    Path die1 = zone("intel-rapl:1", "package-0-die-1", 5_000);
    RaplDiscovery.discover(root, nameFails(1, e, die1), clock, found, rejected);
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
        .satisfies(s -> assertThat(s.issue()).contains(CounterIssue.NOT_PRESENT));
  }

  /**
   * Two sockets of two dies, each die with its DRAM, discovered while the DRAM zones' names given
   * stay unreadable.
   */
  private void discoverTwoSocketsWithUnnamedDram(String... unnamedDram) throws IOException {
    zone("intel-rapl:0", "package-0-die-0", 1_000);
    zone("intel-rapl:0:0", "dram", 100);
    zone("intel-rapl:1", "package-0-die-1", 2_000);
    zone("intel-rapl:1:0", "dram", 200);
    zone("intel-rapl:2", "package-1-die-0", 3_000);
    zone("intel-rapl:2:0", "dram", 300);
    zone("intel-rapl:3", "package-1-die-1", 4_000);
    zone("intel-rapl:3:0", "dram", 400);
    Path[] unnamed = new Path[unnamedDram.length];
    for (int i = 0; i < unnamed.length; i++) {
      unnamed[i] = root.resolve(unnamedDram[i]);
    }
    IOException eio = new IOException("Input/output error");
    RaplDiscovery.discover(
        root, nameFails(Integer.MAX_VALUE, eio, unnamed), clock, found, rejected);
  }

  @Test
  void anUnnamedDramZone_refusesOnlyTheDramOfThePackageItsZoneNames() throws IOException {
    // A sub-zone is DRAM of the package its zone names, so package 0's DRAM is whole.
    discoverTwoSocketsWithUnnamedDram("intel-rapl:3:0");
    assertThat(found)
        .extracting(EnergyChannel::domain)
        .containsExactlyInAnyOrder(
            EnergyDomain.cpuPackage(0), EnergyDomain.cpuPackage(1), EnergyDomain.dram(0));
    assertThat(rejected)
        .filteredOn(s -> s.issue().equals(Optional.of(CounterIssue.NOT_A_DOMAIN)))
        .extracting(CounterStatus::counter)
        .containsExactly("rapl:intel-rapl:2:0");
  }

  @Test
  void eachRefusedDram_namesTheUnnamedZoneUnderItsOwnPackage() throws IOException {
    discoverTwoSocketsWithUnnamedDram("intel-rapl:1:0", "intel-rapl:3:0");
    assertThat(rejected)
        .filteredOn(s -> s.counter().equals("rapl:intel-rapl:2:0"))
        .singleElement()
        .satisfies(s -> assertThat(s.detail()).contains("zone rapl:intel-rapl:3:0,"));
  }
}
