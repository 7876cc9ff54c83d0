package org.meshjava.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The CPU packages a process may run on, read from a fake two-socket sysfs tree. */
class CpuPackageTopologyTest {
  @TempDir Path root;

  /** Four CPUs, all online: 0 and 1 on package 0, 2 and 3 on package 1. */
  private Path twoSockets() throws IOException {
    Path cpus = root.resolve("cpu");
    int[] packageOf = {0, 0, 1, 1};
    for (int c = 0; c < packageOf.length; c++) {
      Path topology = Files.createDirectories(cpus.resolve("cpu" + c).resolve("topology"));
      Files.writeString(topology.resolve("physical_package_id"), packageOf[c] + "\n");
    }
    Files.writeString(cpus.resolve("online"), "0-3\n");
    return cpus;
  }

  private Path status(String allowed) throws IOException {
    return Files.writeString(
        root.resolve("status"),
        "Name:\tjava\nCpus_allowed:\tf\nCpus_allowed_list:\t"
            + allowed
            + "\nMems_allowed_list:\t0-1\n");
  }

  private static HostPackages whole(int... packages) {
    return new HostPackages(
        java.util.Arrays.stream(packages)
            .mapToObj(EnergyDomain::cpuPackage)
            .collect(java.util.stream.Collectors.toSet()),
        true);
  }

  @Test
  void read_whenAllowedOnEveryCpu_isBothPackages() throws IOException {
    assertThat(CpuPackageTopology.read(status("0-3"), twoSockets())).isEqualTo(whole(0, 1));
  }

  @Test
  void read_whenPinnedToTheSecondSocket_isOnlyThatPackage() throws IOException {
    assertThat(CpuPackageTopology.read(status("2,3"), twoSockets())).isEqualTo(whole(1));
  }

  @Test
  void read_whenAllowedCpusSpanBothSockets_isBoth() throws IOException {
    assertThat(CpuPackageTopology.read(status("1-2"), twoSockets())).isEqualTo(whole(0, 1));
  }

  @Test
  void read_withoutLinuxFiles_isPackageZero_complete() {
    assertThat(CpuPackageTopology.read(root.resolve("absent"), root.resolve("absent-cpu")))
        .isEqualTo(whole(0));
  }

  @Test
  void read_whenTheListIsGarbage_isPackageZero_incomplete() throws IOException {
    assertThat(CpuPackageTopology.read(status("zero-three"), twoSockets()))
        .isEqualTo(new HostPackages(Set.of(EnergyDomain.cpuPackage(0)), false));
  }

  /**
   * Regression: on Linux with {@code /sys/devices/system/cpu} hidden (a container that masks it),
   * every allowed CPU's package was unreadable and the answer fell back to package 0, as whole as a
   * single-package host's: on two sockets, a serve on the second was graded a reading of package
   * 0's counter alone. The fallback is incomplete now, so no figure relying on it is a reading.
   */
  @Test
  void read_whenTheCpuTreeIsHidden_isIncomplete() throws IOException {
    assertThat(CpuPackageTopology.read(status("0-3"), root.resolve("hidden-cpu")))
        .isEqualTo(new HostPackages(Set.of(EnergyDomain.cpuPackage(0)), false));
  }

  @Test
  void read_whenAnOnlineAllowedCpuHasNoPackage_isIncomplete() throws IOException {
    Path cpus = twoSockets();
    Files.delete(cpus.resolve("cpu3/topology/physical_package_id"));
    HostPackages read = CpuPackageTopology.read(status("2,3"), cpus);
    assertThat(read.packages()).containsExactly(EnergyDomain.cpuPackage(1));
    assertThat(read.complete()).as("cpu3 may run on a package no one named").isFalse();
  }

  @Test
  void read_whenAnAllowedCpuIsOffline_ignoresIt_complete() throws IOException {
    Path cpus = twoSockets();
    Files.writeString(cpus.resolve("online"), "0-2\n");
    Files.delete(cpus.resolve("cpu3/topology/physical_package_id"));
    assertThat(CpuPackageTopology.read(status("0-3"), cpus)).isEqualTo(whole(0, 1));
  }

  /**
   * Regression (§3.3): an allowed CPU that {@code online} did not list was skipped as offline
   * though its package could be read. LXCFS's CPU view shows a container whose CPU time is capped
   * at two CPUs {@code online} "0-1", numbered anew, while its affinity spans both sockets: the
   * answer was package 0 alone, complete, and a serve on package 1 was graded a reading of package
   * 0's counter. A package that can be read counts now, whatever {@code online} says.
   */
  @Test
  void read_whenOnlineListsFewerCpusThanTheAffinity_countsEveryPackageItCanRead()
      throws IOException {
    Path cpus = twoSockets();
    Files.writeString(cpus.resolve("online"), "0-1\n");
    assertThat(CpuPackageTopology.read(status("0-3"), cpus)).isEqualTo(whole(0, 1));
  }

  @Test
  void cover_addsEveryHostPackageToADeclarationMissingOne_andLeavesAnEmptyOneEmpty() {
    HostPackages host = whole(0, 1);
    assertThat(host.cover(Set.of(EnergyDomain.gpu(0))))
        .containsExactlyInAnyOrder(
            EnergyDomain.gpu(0), EnergyDomain.cpuPackage(0), EnergyDomain.cpuPackage(1));
    assertThat(host.cover(Set.of())).isEmpty();
    Set<EnergyDomain> both = Set.of(EnergyDomain.cpuPackage(0), EnergyDomain.cpuPackage(1));
    assertThat(host.cover(both)).isSameAs(both);
  }

  @Test
  void servingEngineDefault_declaresEveryPackageOfThisProcess() {
    ServingEngine engine =
        new ServingEngine() {
          @Override
          public String name() {
            return "x";
          }

          @Override
          public Recipe recipe() {
            throw new UnsupportedOperationException();
          }

          @Override
          public Fidelity fidelity() {
            throw new UnsupportedOperationException();
          }

          @Override
          public CostProfile costProfile() {
            throw new UnsupportedOperationException();
          }

          @Override
          public EngineResult serve(ServeRequest request, TokenSequence prompt) {
            throw new UnsupportedOperationException();
          }
        };
    assertThat(engine.domains())
        .isEqualTo(EnergyDomain.cpuPackagesOfThisProcess())
        .isNotEmpty()
        .allSatisfy(d -> assertThat(d.kind()).isEqualTo(EnergyDomain.Kind.CPU_PACKAGE));
  }
}
