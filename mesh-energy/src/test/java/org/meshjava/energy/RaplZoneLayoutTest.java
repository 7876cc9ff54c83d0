package org.meshjava.energy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.core.EnergyDomain;

/**
 * RAPL zones found in both layouts Linux publishes them in. The device tree ({@code
 * /sys/devices/virtual/powercap/intel-rapl}) holds each package zone as a folder with its DRAM
 * sub-zone inside; {@code /sys/class/powercap} lists the zone and the sub-zone side by side, as
 * links into that tree, so the sub-zone is also reachable inside the zone. Either root finds the
 * package and its DRAM, each once.
 */
class RaplZoneLayoutTest {
  private static final long RANGE = 262_143_328_850L;

  @TempDir Path tmp;

  private final FakeClock clock = new FakeClock();

  /** The device tree of one package with a DRAM and a core sub-zone; returns the control type. */
  private Path deviceTree() throws IOException {
    Path type = tmp.resolve("devices/virtual/powercap/intel-rapl");
    Path pkg = zone(type.resolve("intel-rapl:0"), "package-0", 1_000);
    zone(pkg.resolve("intel-rapl:0:0"), "core", 300);
    zone(pkg.resolve("intel-rapl:0:1"), "dram", 2_000);
    return type;
  }

  /** {@code /sys/class/powercap} over {@link #deviceTree()}: every zone linked side by side. */
  private Path classTree() throws IOException {
    Path type = deviceTree();
    Path classes = Files.createDirectories(tmp.resolve("class/powercap"));
    Files.createSymbolicLink(classes.resolve("intel-rapl"), type);
    Path pkg = type.resolve("intel-rapl:0");
    Files.createSymbolicLink(classes.resolve("intel-rapl:0"), pkg);
    Files.createSymbolicLink(classes.resolve("intel-rapl:0:0"), pkg.resolve("intel-rapl:0:0"));
    Files.createSymbolicLink(classes.resolve("intel-rapl:0:1"), pkg.resolve("intel-rapl:0:1"));
    return classes;
  }

  private static Path zone(Path dir, String name, long energy) throws IOException {
    Files.createDirectories(dir);
    Files.writeString(dir.resolve("name"), name + "\n");
    Files.writeString(dir.resolve("max_energy_range_uj"), RANGE + "\n");
    Files.writeString(dir.resolve("energy_uj"), energy + "\n");
    return dir;
  }

  private record Found(List<EnergyChannel> channels, List<CounterStatus> refused) {}

  private Found discover(Path root) {
    Found f = new Found(new ArrayList<>(), new ArrayList<>());
    RaplDiscovery.discover(root, SysfsReader.FILES, clock, f.channels(), f.refused());
    return f;
  }

  // Two meters link their windows by the counter each reads, not by the domain's name: a zone
  // reached through either layout is one counter, and a zone of another tree is another.
  @Test
  void aZoneIsOneCounterWhicheverLayoutNamesIt_andAnotherTreesZoneIsAnother() throws IOException {
    Found viaClass = discover(classTree());
    Found viaDevices = discover(tmp.resolve("devices/virtual/powercap/intel-rapl"));
    Path other = tmp.resolve("other");
    zone(other.resolve("intel-rapl:0"), "package-0", 1_000);
    Found elsewhere = discover(other);

    Object pkg = viaClass.channels().getFirst().hardware();
    assertThat(viaDevices.channels().getFirst().hardware()).isEqualTo(pkg);
    assertThat(viaClass.channels().get(1).hardware())
        .isEqualTo(viaDevices.channels().get(1).hardware())
        .isNotEqualTo(pkg);
    assertThat(elsewhere.channels().getFirst().domain()).isEqualTo(EnergyDomain.cpuPackage(0));
    assertThat(elsewhere.channels().getFirst().hardware()).isNotEqualTo(pkg);
  }

  @Test
  void theDeviceTree_findsThePackageAndTheDramInsideIt() throws IOException {
    Found f = discover(deviceTree());

    assertThat(f.channels())
        .extracting(EnergyChannel::name, EnergyChannel::domain)
        .containsExactly(
            tuple("rapl:intel-rapl:0", EnergyDomain.cpuPackage(0)),
            tuple("rapl:intel-rapl:0:1", EnergyDomain.dram(0)));
    assertThat(f.refused())
        .singleElement()
        .satisfies(s -> assertThat(s.counter()).isEqualTo("rapl:intel-rapl:0:0"));
  }

  @Test
  void theClassFolder_findsEachZoneOnce_thoughTheSubZonesShowBesideAndInside() throws IOException {
    Found f = discover(classTree());

    assertThat(f.channels())
        .extracting(EnergyChannel::domain)
        .containsExactly(EnergyDomain.cpuPackage(0), EnergyDomain.dram(0));
    assertThat(f.refused())
        .as("the core zone once, and no zone taken for a mirror of itself")
        .extracting(CounterStatus::counter)
        .containsExactly("rapl:intel-rapl:0:0");
  }

  @Test
  void bothLayouts_listTheSameZones() throws IOException {
    Path classes = classTree();
    Path devices = tmp.resolve("devices/virtual/powercap/intel-rapl");

    assertThat(RaplDiscovery.zonesUnder(devices))
        .extracting(p -> p.getFileName().toString())
        .containsExactly("intel-rapl:0", "intel-rapl:0:0", "intel-rapl:0:1")
        .isEqualTo(
            RaplDiscovery.zonesUnder(classes).stream()
                .map(p -> p.getFileName().toString())
                .toList());
  }

  /**
   * A package zone named as the root holds its sub-zones but not itself: it is no root, as the
   * checked setting says, rather than a root that meters the DRAM and never the package.
   */
  @Test
  void aZoneNamedAsTheRoot_isNoRoot_thoughItHoldsItsSubZones() throws IOException {
    Path pkg = deviceTree().resolve("intel-rapl:0");

    assertThat(discover(pkg).channels()).isEmpty();
    assertThatThrownBy(() -> DiscoveryOptions.defaults().withCheckedRaplRoot(pkg))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith(pkg + " holds no intel-rapl:* zone");
  }

  /**
   * One zone folder that cannot be listed (denied, or gone mid-walk) costs only the sub-zones
   * inside it: its package, and the other package with its DRAM, are still metered. The listing
   * fails through the reader seam because the build runs as root, for whom permissions deny
   * nothing.
   */
  @Test
  void aZoneFolderThatCannotBeListed_costsOnlyItsOwnSubZones() throws IOException {
    Path type = deviceTree();
    Path other = zone(type.resolve("intel-rapl:1"), "package-1", 5_000);
    zone(other.resolve("intel-rapl:1:0"), "dram", 7_000);
    Path denied = type.resolve("intel-rapl:0");
    Found f = new Found(new ArrayList<>(), new ArrayList<>());

    RaplDiscovery.discover(type, listingDenied(denied), clock, f.channels(), f.refused());

    assertThat(f.channels())
        .extracting(EnergyChannel::domain)
        .containsExactly(
            EnergyDomain.cpuPackage(0), EnergyDomain.cpuPackage(1), EnergyDomain.dram(1));
    assertThat(f.refused())
        .singleElement()
        .satisfies(
            s -> {
              assertThat(s.counter()).isEqualTo("rapl:intel-rapl:0:*");
              assertThat(s.issue()).contains(CounterIssue.UNREADABLE);
              assertThat(s.detail()).contains("cannot list " + denied, "AccessDenied");
            });
  }

  /**
   * Regression: a folder that could not be listed (the powercap root, or a zone's) brought
   * discovery's advice to grant read access to energy_uj, which cannot make a folder listable; it
   * is now named as a listing, with the advice to check how /sys is mounted and any security policy
   * over it.
   */
  @Test
  void aFolderThatCannotBeListed_isNamedAsAListing_withoutTheEnergyUjAdvice() throws IOException {
    Path type = deviceTree();
    zone(type.resolve("intel-rapl:1"), "package-1", 5_000);
    for (Path denied : List.of(type, type.resolve("intel-rapl:0"))) {
      Found f = new Found(new ArrayList<>(), new ArrayList<>());
      List<PowercapRefusal> unreadable = new ArrayList<>();

      RaplDiscovery.discover(
          type, listingDenied(denied), clock, f.channels(), f.refused(), unreadable);

      assertThat(MeterDiscovery.unreadableAdvice(unreadable))
          .as("the advice where %s cannot be listed", denied)
          .hasValueSatisfying(
              advice ->
                  assertThat(advice)
                      .contains(" (folder listing)", "how /sys is mounted")
                      .doesNotContain("energy_uj"));
    }
  }

  /** The real files, but {@code denied} cannot be listed (permission denied). */
  private static SysfsReader listingDenied(Path denied) {
    return new SysfsReader() {
      @Override
      public String read(Path file) throws IOException {
        return SysfsReader.FILES.read(file);
      }

      @Override
      public List<Path> list(Path folder) throws IOException {
        if (folder.equals(denied)) {
          throw new AccessDeniedException(folder.toString());
        }
        return SysfsReader.FILES.list(folder);
      }
    };
  }
}
