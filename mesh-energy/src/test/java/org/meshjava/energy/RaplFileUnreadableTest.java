package org.meshjava.energy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Discovery's advice on granting read access to {@code energy_uj} (root-only since CVE-2020-8694)
 * is given only where that file is denied. A zone whose {@code max_energy_range_uj} cannot be read
 * is reported naming that file, without the advice: that file is readable by every user on a stock
 * kernel, and granting access to {@code energy_uj} would not help. A range whose read failed once
 * open is a failed read, not a matter of access, and is read again at discovery as the zone's name
 * and {@code energy_uj} are. A zone with no {@code energy_uj} at all publishes no counter ({@link
 * CounterIssue#NOT_PRESENT}), and no access can make the file appear. A fake powercap tree.
 */
class RaplFileUnreadableTest {
  @TempDir Path root;
  private final FakeClock clock = new FakeClock();
  private final List<Runnable> reprobes = new ArrayList<>();

  private Path zone(String dir, String name) throws IOException {
    Path z = Files.createDirectories(root.resolve(dir));
    Files.writeString(z.resolve("name"), name + "\n");
    Files.writeString(z.resolve("max_energy_range_uj"), "262143328850\n");
    Files.writeString(z.resolve("energy_uj"), "1000\n");
    return z;
  }

  private MeterDiscovery discover(SysfsReader reader) {
    DiscoveryOptions options =
        DiscoveryOptions.defaults().withRaplRoot(root).withoutNvml().withoutIoReport();
    return MeterDiscovery.discover(options, clock, reprobes::add, reader, "Linux");
  }

  /** The files, but for {@code denied}, which this process may not open. */
  private static SysfsReader denying(Path denied) {
    return file -> {
      if (file.equals(denied)) {
        throw new AccessDeniedException(file.toString());
      }
      return SysfsReader.FILES.read(file);
    };
  }

  @Test
  void aRangeDenied_isNamed_andGetsNoEnergyUjAdvice() throws IOException {
    Path range = zone("intel-rapl:0", "package-0").resolve("max_energy_range_uj");
    MeterDiscovery found = discover(denying(range));
    assertThat(found.counters())
        .singleElement()
        .satisfies(
            s -> {
              assertThat(s.issue()).contains(CounterIssue.UNREADABLE);
              assertThat(s.detail())
                  .startsWith("cannot open " + range + ": ")
                  .contains("every user may read it")
                  .doesNotContain("udev");
            });
    assertThat(found.unreadableAdvice())
        .hasValueSatisfying(
            advice ->
                assertThat(advice)
                    .contains("rapl:intel-rapl:0 (max_energy_range_uj)")
                    .doesNotContain("CVE-2020-8694"));
  }

  @Test
  void aRangeWhoseReadFailedOnceOpen_isReadFailed_withoutAccessAdvice() throws IOException {
    Path range = zone("intel-rapl:0", "package-0").resolve("max_energy_range_uj");
    MeterDiscovery found =
        discover(
            file -> {
              if (file.equals(range)) {
                throw new IOException("Input/output error");
              }
              return SysfsReader.FILES.read(file);
            });
    assertThat(found.counters())
        .singleElement()
        .satisfies(s -> assertThat(s.issue()).contains(CounterIssue.READ_FAILED));
    assertThat(found.unreadableAdvice()).isEmpty();
  }

  @Test
  void aRangeWhoseReadFailsOnceOpen_isReadAgain_andTheZoneIsUsed() throws IOException {
    Path range = zone("intel-rapl:0", "package-0").resolve("max_energy_range_uj");
    AtomicInteger failuresLeft = new AtomicInteger(2);
    MeterDiscovery found =
        discover(
            file -> {
              if (file.equals(range) && failuresLeft.getAndDecrement() > 0) {
                throw new IOException("Input/output error");
              }
              return SysfsReader.FILES.read(file);
            });
    assertThat(found.counters())
        .singleElement()
        .satisfies(s -> assertThat(s.state()).isNotEqualTo(CounterState.UNAVAILABLE));
    assertThat(failuresLeft).hasValueLessThan(0);
  }

  @Test
  void aRangeThatCannotBeOpened_isNotReadAgain() throws IOException {
    Path range = zone("intel-rapl:0", "package-0").resolve("max_energy_range_uj");
    AtomicInteger reads = new AtomicInteger();
    MeterDiscovery found =
        discover(
            file -> {
              if (file.equals(range)) {
                reads.incrementAndGet();
                throw new AccessDeniedException(file.toString());
              }
              return SysfsReader.FILES.read(file);
            });
    assertThat(found.counters())
        .singleElement()
        .satisfies(s -> assertThat(s.issue()).contains(CounterIssue.UNREADABLE));
    assertThat(reads).hasValue(1);
  }

  /**
   * Regression: a zone without {@code energy_uj} was UNREADABLE, and discovery's WARN told the
   * operator to grant read access to a file that does not exist.
   */
  @Test
  void aZoneWithoutEnergyUj_isSaidToHaveNoCounter_withoutAccessAdvice() throws IOException {
    Files.delete(zone("intel-rapl:0", "package-0").resolve("energy_uj"));

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
    assertThat(found.unreadableAdvice()).isEmpty();
  }

  @Test
  void aZoneWhoseEnergyUjIsDenied_stillGetsTheAccessAdvice() throws IOException {
    Path energy = zone("intel-rapl:0", "package-0").resolve("energy_uj");

    MeterDiscovery found = discover(denying(energy));

    assertThat(found.counters())
        .singleElement()
        .satisfies(
            s -> {
              assertThat(s.issue()).contains(CounterIssue.UNREADABLE);
              assertThat(s.detail()).contains("EACCES", "SELinux or AppArmor");
            });
    energyUjAdviceFor(found, "[rapl:intel-rapl:0]");
  }

  /**
   * Regression: an open refused with EACCES was said by each caller in words of its own (energy_uj
   * "is not readable by this process", a range "cannot read max_energy_range_uj: …"), and {@link
   * SysfsOpenFailure#DENIED}'s words, which name the audit log that records a policy's denial,
   * reached no status. Each is said in those words now, whichever file was denied.
   */
  @Test
  void aDeniedFile_isSaidInTheOneDeniedWording_whicheverFileItIs() throws IOException {
    Path zone = zone("intel-rapl:0", "package-0");
    for (Path denied : List.of(zone.resolve("energy_uj"), zone.resolve("max_energy_range_uj"))) {
      MeterDiscovery found = discover(denying(denied));

      assertThat(found.counters())
          .singleElement()
          .satisfies(
              s ->
                  assertThat(s.detail())
                      .as(denied.getFileName().toString())
                      .startsWith(SysfsOpenFailure.CANNOT_OPEN + denied + ": ")
                      .contains("(EACCES)", "its audit log names the denial"));
    }
  }

  /** Checks that {@code found}'s advice is energy_uj's own (a udev rule, or the MAC policy). */
  private static void energyUjAdviceFor(MeterDiscovery found, String counters) {
    assertThat(found.unreadableAdvice())
        .hasValueSatisfying(
            advice ->
                assertThat(advice)
                    .contains(counters)
                    .contains("CVE-2020-8694")
                    .contains("grant read access")
                    .contains("Where SELinux or AppArmor refused it")
                    .doesNotContain("(max_energy_range_uj)"));
  }

  /**
   * Regression: discovery's advice sorted refusals by their status's words, and took any whose
   * words held "max_energy_range_uj" for that file: an energy_uj denied under a powercap root whose
   * path holds those words was sent to check the range file instead of granting read access. The
   * advice is now sorted by which file failed.
   */
  @Test
  void anEnergyUjDenied_underARootNamedLikeTheRangeFile_getsTheEnergyUjAdvice() throws IOException {
    root = Files.createDirectories(root.resolve("max_energy_range_uj").resolve("powercap"));
    Path energy = zone("intel-rapl:0", "package-0").resolve("energy_uj");

    MeterDiscovery found = discover(denying(energy));

    assertThat(found.counters())
        .singleElement()
        .satisfies(s -> assertThat(s.detail()).contains("max_energy_range_uj"));
    energyUjAdviceFor(found, "[rapl:intel-rapl:0]");
  }

  /**
   * Regression: an {@code energy_uj} whose open was answered ENODEV (its zone being removed) was
   * UNREADABLE, and discovery told the operator to grant read access to a counter no longer there.
   */
  @Test
  void anEnergyUjWhoseDeviceIsGone_isNotPresent_withoutAccessAdvice() throws IOException {
    Path energy = zone("intel-rapl:0", "package-0").resolve("energy_uj");

    notPresentWithoutAdvice(
        discover(
            file -> {
              if (file.equals(energy)) {
                throw new FileSystemException(file.toString(), null, "No such device");
              }
              return SysfsReader.FILES.read(file);
            }),
        "rapl:intel-rapl:0",
        "the device behind it is gone");
  }

  /**
   * Regression: an {@code energy_uj} behind a symbolic link loop (ELOOP) was UNREADABLE, and
   * discovery's WARN told the operator to grant read access to a file no path reaches.
   */
  @Test
  void anEnergyUjBehindALinkLoop_isNamedALoop_withoutAccessAdvice() throws IOException {
    Path energy = zone("intel-rapl:0", "package-0").resolve("energy_uj");
    Files.delete(energy);
    Files.createSymbolicLink(energy, energy.getFileName());

    notPresentWithoutAdvice(
        discover(SysfsReader.FILES), "rapl:intel-rapl:0", "symbolic link on its path loops");
  }

  /**
   * Checks that {@code found} reports {@code counter} once, {@link CounterIssue#NOT_PRESENT} in
   * {@code words}, and gives no advice on access.
   */
  private static void notPresentWithoutAdvice(MeterDiscovery found, String counter, String words) {
    assertThat(found.counters())
        .filteredOn(s -> s.counter().equals(counter))
        .singleElement()
        .satisfies(
            s -> {
              assertThat(s.issue()).contains(CounterIssue.NOT_PRESENT);
              assertThat(s.detail()).contains(words);
            });
    assertThat(found.unreadableAdvice()).isEmpty();
  }

  /**
   * Regression: a zone entry that is a file where the kernel has a folder (ENOTDIR reading its
   * name) was UNREADABLE, with advice on read access that cannot make it a folder.
   */
  @Test
  void aZoneThatIsNotAFolder_isNotPresent_withoutAccessAdvice() throws IOException {
    zone("intel-rapl:0", "package-0");
    Files.writeString(root.resolve("intel-rapl:0:0"), "not a zone\n");

    notPresentWithoutAdvice(
        discover(SysfsReader.FILES), "rapl:intel-rapl:0:0", "should be a folder is not one");
  }

  /**
   * Regression: an {@code energy_uj} whose opening a security policy refused (EPERM, which file
   * permissions never answer) got the advice to grant read access with a udev rule.
   */
  @Test
  void anEnergyUjRefusedByAPolicy_isUnreadable_withPolicyAdvice_notTheUdevRule()
      throws IOException {
    Path energy = zone("intel-rapl:0", "package-0").resolve("energy_uj");

    MeterDiscovery found =
        discover(
            file -> {
              if (file.equals(energy)) {
                throw new FileSystemException(file.toString(), null, "Operation not permitted");
              }
              return SysfsReader.FILES.read(file);
            });

    assertThat(found.counters())
        .singleElement()
        .satisfies(
            s -> {
              assertThat(s.issue()).contains(CounterIssue.UNREADABLE);
              assertThat(s.detail())
                  .contains("EPERM")
                  .contains("security policy")
                  .contains("seccomp filter")
                  .contains("SELinux or AppArmor, which refuse with EACCES");
            });
    assertThat(found.unreadableAdvice())
        .hasValueSatisfying(
            advice ->
                assertThat(advice)
                    .contains("[rapl:intel-rapl:0]")
                    .contains("not because of its permissions")
                    .doesNotContain("CVE-2020-8694")
                    .doesNotContain("udev")
                    .doesNotContain("lockdown"));
  }

  /**
   * Regression: a zone without {@code max_energy_range_uj}, or without a {@code name}, was
   * UNREADABLE ("may not read"), while one without {@code energy_uj} is NOT_PRESENT: no access
   * makes a file exist.
   */
  @Test
  void aZoneWithoutItsRangeOrName_isNotPresent_withoutAccessAdvice() throws IOException {
    Files.delete(zone("intel-rapl:0", "package-0").resolve("max_energy_range_uj"));
    Files.delete(zone("intel-rapl:1", "package-1").resolve("name"));

    MeterDiscovery found = discover(SysfsReader.FILES);

    assertThat(found.counters())
        .hasSize(2)
        .allSatisfy(
            s -> {
              assertThat(s.issue()).contains(CounterIssue.NOT_PRESENT);
              assertThat(s.detail()).contains("does not exist");
            });
    assertThat(found.unreadableAdvice()).isEmpty();
  }
}
