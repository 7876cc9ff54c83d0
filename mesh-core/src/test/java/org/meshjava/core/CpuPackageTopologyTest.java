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

  /** Four CPUs: 0 and 1 on package 0, 2 and 3 on package 1. */
  private Path twoSockets() throws IOException {
    Path cpus = root.resolve("cpu");
    int[] packageOf = {0, 0, 1, 1};
    for (int c = 0; c < packageOf.length; c++) {
      Path topology = Files.createDirectories(cpus.resolve("cpu" + c).resolve("topology"));
      Files.writeString(topology.resolve("physical_package_id"), packageOf[c] + "\n");
    }
    return cpus;
  }

  private Path status(String allowed) throws IOException {
    return Files.writeString(
        root.resolve("status"),
        "Name:\tjava\nCpus_allowed:\tf\nCpus_allowed_list:\t"
            + allowed
            + "\nMems_allowed_list:\t0-1\n");
  }

  @Test
  void read_whenAllowedOnEveryCpu_isBothPackages() throws IOException {
    assertThat(CpuPackageTopology.read(status("0-3"), twoSockets())).isEqualTo(Set.of(0, 1));
  }

  @Test
  void read_whenPinnedToTheSecondSocket_isOnlyThatPackage() throws IOException {
    assertThat(CpuPackageTopology.read(status("2,3"), twoSockets())).isEqualTo(Set.of(1));
  }

  @Test
  void read_whenAllowedCpusSpanBothSockets_isBoth() throws IOException {
    assertThat(CpuPackageTopology.read(status("1-2"), twoSockets())).isEqualTo(Set.of(0, 1));
  }

  @Test
  void read_withoutLinuxFiles_isPackageZero() {
    assertThat(CpuPackageTopology.read(root.resolve("absent"), root.resolve("absent-cpu")))
        .isEqualTo(Set.of(0));
  }

  @Test
  void read_whenTheListIsGarbage_isPackageZero() throws IOException {
    assertThat(CpuPackageTopology.read(status("zero-three"), twoSockets())).isEqualTo(Set.of(0));
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
