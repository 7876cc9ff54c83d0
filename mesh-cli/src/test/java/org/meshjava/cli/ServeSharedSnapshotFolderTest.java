package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.meshjava.cli.MeshCommandTest.mesh;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.journal.SnapshotFolderClaim;

/**
 * Two stewards on two journals configured with one snapshot folder: the second is refused at start
 * (SPEC.md §60.8). Both used to serve, each deleting the other's snapshots as it saved its own, so
 * that a restart found the other's snapshot as the latest and refused to start ("covers 46 records
 * but the journal holds 26").
 */
class ServeSharedSnapshotFolderTest {
  @TempDir Path tmp;

  @Test
  void aSecondSteward_onAnotherJournal_withTheSameSnapshotFolder_isRefused_andTheFirstServesOn()
      throws Exception {
    assertThat(mesh("key", "generate", "--out", tmp.resolve("k.key").toString()).code()).isZero();
    Path snaps = tmp.resolve("shared.snapshots");
    Path config = tmp.resolve("mesh.json");
    Files.writeString(
        config,
        """
        {"host": "127.0.0.1", "port": 0, "key_file": "%s", "meter": "estimator",
         "backends": [{"type": "reference", "name": "small", "fidelity": "F1", "uj_per_token": 40}],
         "snapshots": {"every_records": 1, "dir": "%s"}}"""
            .formatted(tmp.resolve("k.key"), snaps));
    try (InProcessServe first =
        InProcessServe.start(
            tmp.resolve("port-a"),
            "--config",
            config.toString(),
            "--journal",
            tmp.resolve("a.journal").toString(),
            "--fresh-chain")) {
      MeshCommandTest.Run second =
          startOrTimeOut(
              "serve",
              "--config",
              config.toString(),
              "--journal",
              tmp.resolve("b.journal").toString(),
              "--fresh-chain");
      assertThat(second.code()).as("%s", second).isEqualTo(1);
      assertThat(second.err())
          .contains("snapshot folder " + snaps + " is in use by another steward")
          .contains("give each steward a snapshot folder of its own");
      // The refused start removed the journal it created, and nothing of the first's folder.
      assertThat(tmp.resolve("b.journal")).doesNotExist();
      assertThat(snaps.resolve(SnapshotFolderClaim.LOCK_FILE)).exists();
      assertThat(first.port()).isPositive();
    }
  }

  /**
   * Runs a command that should fail at start; one that is still running after a minute serves,
   * which is the defect: it is stopped and reported as such.
   */
  private static MeshCommandTest.Run startOrTimeOut(String... args) throws Exception {
    AtomicReference<MeshCommandTest.@Nullable Run> run = new AtomicReference<>();
    Thread t = new Thread(() -> run.set(mesh(args)));
    t.start();
    t.join(60_000);
    if (t.isAlive()) {
      t.interrupt();
      t.join(10_000);
      throw new AssertionError("the second steward started serving on the shared snapshot folder");
    }
    MeshCommandTest.Run r = run.get();
    assertThat(r).isNotNull();
    return r;
  }
}
