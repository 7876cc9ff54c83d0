package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.meshjava.cli.MeshCommandTest.mesh;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.energy.DiscoveryOptions;

/**
 * {@code mesh serve --rapl-root DIR} and the configuration's {@code "rapl_root"}: where a container
 * mounts the host's powercap tree. The folder is checked before anything starts; one that is
 * missing or holds no {@code intel-rapl:*} zone stops the start naming the setting.
 */
class ServeRaplRootTest {
  @TempDir Path tmp;

  /**
   * A powercap folder holding one zone, which is all the start checks; discovery then reports the
   * zone's missing files as it would any unreadable zone.
   */
  private Path powercap() throws Exception {
    return Files.createDirectories(tmp.resolve("host-powercap/intel-rapl:0")).getParent();
  }

  @Test
  void theConfigurationsRaplRoot_isReadAgainstItsFolder() throws Exception {
    Path config = Files.writeString(tmp.resolve("mesh.json"), "{\"rapl_root\": \"host/powercap\"}");

    assertThat(ServeConfig.read(config).raplRoot()).contains(tmp.resolve("host/powercap"));
    assertThat(ServeConfig.empty().raplRoot()).isEmpty();
  }

  @Test
  void aRootHoldingAZone_isWhereDiscoveryLooks() throws Exception {
    Path root = powercap();

    assertThat(ServeCommand.raplDiscovery("discover", Optional.of(root)))
        .map(DiscoveryOptions::raplRoot)
        .contains(Optional.of(root));
    assertThat(ServeCommand.raplDiscovery("discover", Optional.empty())).isEmpty();
  }

  @Test
  void aRootHoldingAZone_startsTheServer() throws Exception {
    Path root = powercap();

    try (InProcessServe serve =
        InProcessServe.start(
            tmp.resolve("port"),
            InProcessServe.withoutMiniLm(tmp, "--rapl-root", root.toString(), "--port", "0"))) {
      assertThat(serve.port()).isPositive();
    }
  }

  @Test
  void aMissingFolder_stopsTheStartNamingTheFlag() {
    Path missing = tmp.resolve("no-such-folder");

    MeshCommandTest.Run run = mesh("serve", "--rapl-root", missing.toString(), "--port", "0");

    assertThat(run.code()).as(run.err()).isEqualTo(1);
    assertThat(run.err()).contains("--rapl-root (rapl_root): " + missing + " is not a folder");
  }

  @Test
  void aFolderHoldingNoZone_stopsTheStartNamingTheKey() throws Exception {
    Path zoneNotTree = powercap().resolve("intel-rapl:0");
    Path config =
        Files.writeString(
            tmp.resolve("mesh.json"), "{\"port\": 0, \"rapl_root\": \"" + zoneNotTree + "\"}");

    MeshCommandTest.Run run = mesh("serve", "--config", config.toString());

    assertThat(run.code()).as(run.err()).isEqualTo(1);
    assertThat(run.err())
        .contains("rapl_root")
        .contains(zoneNotTree + " holds no intel-rapl:* zone");
  }

  @Test
  void aRootBesideTheEstimator_stopsTheStart() throws Exception {
    MeshCommandTest.Run run =
        mesh("serve", "--meter", "estimator", "--rapl-root", powercap().toString(), "--port", "0");

    assertThat(run.code()).as(run.err()).isEqualTo(1);
    assertThat(run.err()).contains("estimator discovers none");
  }

  /**
   * Regression: the root was checked before the meter kind, so a mistyped {@code --meter} beside a
   * root that did not check out was reported as the root's fault alone, and the operator who fixed
   * the root then met the meter's refusal on the next start.
   */
  @Test
  void anUnknownMeterKind_isRefusedByName_beforeTheRootIsChecked() {
    Path missing = tmp.resolve("no-such-folder");

    MeshCommandTest.Run run =
        mesh("serve", "--meter", "discovr", "--rapl-root", missing.toString(), "--port", "0");

    assertThat(run.code()).as(run.err()).isEqualTo(1);
    assertThat(run.err()).contains("--meter discovr: discover or estimator");
  }
}
