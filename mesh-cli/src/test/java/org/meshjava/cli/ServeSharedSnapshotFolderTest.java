package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.meshjava.cli.MeshCommandTest.mesh;

import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
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
    Path snaps = tmp.resolve("shared.snapshots");
    Path config = sharedFolderConfig(snaps);
    try (InProcessServe first = firstJournalsSteward(config)) {
      assertThat(secondJournalsStartRefused(config))
          .contains("snapshot folder " + snaps + " is in use by another steward")
          .contains("give each steward a snapshot folder of its own");
      // The refused start removed the journal it created, and nothing of the first's folder.
      assertThat(tmp.resolve("b.journal")).doesNotExist();
      assertThat(snaps.resolve(SnapshotFolderClaim.LOCK_FILE)).exists();
      assertThat(first.port()).isPositive();
    }
  }

  /**
   * Regression (mesh-bench/crash/race.sh, 8 of 100 rounds): with the first journal's snapshots in
   * the folder, the second journal's steward took the folder's lock and was only then refused by
   * the snapshot it found, so that the first journal's steward, started at the same moment, was
   * refused by that lock and neither served. The folder now records whose snapshots it holds, and
   * the second is refused by that, naming both journals, without taking the lock.
   */
  @Test
  void aSecondJournal_onAFolderHoldingTheFirstsSnapshots_isRefusedNamingIt_andTheFirstStartsAgain()
      throws Exception {
    Path snaps = tmp.resolve("shared.snapshots");
    Path config = sharedFolderConfig(snaps);
    Path a = tmp.resolve("a.journal");
    // A's steward serves once and stops, leaving its snapshot (one is saved at a clean stop).
    try (InProcessServe first = firstJournalsSteward(config)) {
      HttpResponse<String> served =
          HttpClient.newHttpClient()
              .send(
                  HttpRequest.newBuilder(first.base().resolve("/v1/chat/completions"))
                      .timeout(Duration.ofSeconds(30))
                      .header("Content-Type", "application/json")
                      .POST(
                          HttpRequest.BodyPublishers.ofString(
                              """
                              {"model": "small", "max_tokens": 4,
                               "messages": [{"role": "user", "content": "hello"}]}"""))
                      .build(),
                  HttpResponse.BodyHandlers.ofString());
      assertThat(served.statusCode()).as(served.body()).isEqualTo(200);
    }
    assertThat(snaps.resolve(SnapshotFolderClaim.JOURNAL_FILE))
        .hasContent(a.toRealPath().toString());

    assertThat(secondJournalsStartRefused(config))
        .contains(
            "snapshot folder "
                + snaps
                + " holds the snapshots of journal "
                + a.toRealPath()
                + " (as its journal.path records), not of "
                + tmp.toRealPath().resolve("b.journal"))
        .contains("give each journal a snapshot folder of its own");
    // The refused start took nothing of the folder: A's steward starts on it again.
    try (InProcessServe again =
        InProcessServe.start(
            tmp.resolve("port-a2"), "--config", config.toString(), "--journal", a.toString())) {
      assertThat(again.port()).isPositive();
    }
  }

  /** {@code mesh serve} on a new a.journal, listening. */
  private InProcessServe firstJournalsSteward(Path config) throws Exception {
    return InProcessServe.start(
        tmp.resolve("port-a"),
        "--config",
        config.toString(),
        "--journal",
        tmp.resolve("a.journal").toString(),
        "--fresh-chain");
  }

  /** What {@code mesh serve} on b.journal says as it exits 1, refused at start. */
  private String secondJournalsStartRefused(Path config) throws Exception {
    MeshCommandTest.Run second =
        startOrTimeOut(
            "serve",
            "--config",
            config.toString(),
            "--journal",
            tmp.resolve("b.journal").toString(),
            "--fresh-chain");
    assertThat(second.code()).as("%s", second).isEqualTo(1);
    return second.err();
  }

  /** A key, and a configuration that keeps every steward's snapshots in {@code snaps}. */
  private Path sharedFolderConfig(Path snaps) throws Exception {
    assertThat(mesh("key", "generate", "--out", tmp.resolve("k.key").toString()).code()).isZero();
    Path config = tmp.resolve("mesh.json");
    Files.writeString(
        config,
        """
        {"host": "127.0.0.1", "port": 0, "key_file": "%s", "meter": "estimator",
         "backends": [{"type": "reference", "name": "small", "fidelity": "F1", "uj_per_token": 40}],
         "snapshots": {"every_records": 1, "dir": "%s"}}"""
            .formatted(tmp.resolve("k.key"), snaps));
    return config;
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
