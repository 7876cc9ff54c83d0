package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.core.ContentId;
import org.meshjava.core.Fidelity;
import org.meshjava.core.ServeBounds;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.TokenSequence;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.energy.EstimatorMeter;
import org.meshjava.engine.ReferenceEngine;
import org.meshjava.jcp.GrantChain;
import org.meshjava.jcp.Jcp;
import org.meshjava.jcp.Presentation;
import org.meshjava.journal.FileSnapshotStore;
import org.meshjava.journal.Journal;
import org.meshjava.journal.JournalPosition;
import org.meshjava.journal.SnapshotException;
import org.meshjava.journal.postgres.PostgresJournal;
import org.meshjava.journal.postgres.PostgresLocation;
import org.meshjava.receipt.ChainHead;
import org.meshjava.steward.ServeException;
import org.meshjava.steward.Steward;
import org.meshjava.steward.StewardStartException;
import org.meshjava.testpg.PostgresTestServer;

/**
 * A steward on the PostgreSQL journal (a real server) snapshots, and restarts from its snapshot
 * plus the records committed after it (issue 19): the same chain head and spent presentations as a
 * full replay of the database, and a snapshot of another history refused.
 */
class PostgresSnapshotRestartTest {
  @TempDir Path tmp;

  private final SigningKey stewardKey = SigningKey.generate();
  private final SigningKey caller = SigningKey.generate();
  private final Instant now = Instant.ofEpochSecond(Instant.now().getEpochSecond());
  private final String name = Jcp.identity(stewardKey).value();

  private Steward steward(Journal journal, @Nullable Path snapshots, boolean fresh) {
    Steward.Builder b =
        Steward.builder(stewardKey)
            .meter(new EstimatorMeter())
            .clock(InstantSource.fixed(now))
            .journal(journal)
            .snapshotEvery(0)
            .backend(ReferenceEngine.builder().name("ref").build());
    if (snapshots != null) {
      b.snapshots(new FileSnapshotStore(snapshots));
    }
    if (fresh) {
      b.chainHead(ChainHead.GENESIS);
    }
    return b.build();
  }

  private ServeRequest request(String prompt) {
    byte[] b = prompt.getBytes(StandardCharsets.UTF_8);
    return ServeRequest.generation(
        ContentId.ofBytes(b), b.length, new ServeBounds(4, Fidelity.F1, 100_000));
  }

  private static TokenSequence payload(ServeRequest req) {
    return TokenSequence.of(new int[(int) req.promptTokens()]);
  }

  private static void copy(Path from, Path to) throws Exception {
    Files.createDirectories(to);
    try (var files = Files.list(from)) {
      for (Path f : files.toList()) {
        Files.copy(f, to.resolve(f.getFileName()));
      }
    }
  }

  @Test
  @Timeout(180)
  void snapshot_thenTail_onPostgres_restartsAsAFullReplay() throws Exception {
    PostgresTestServer server = PostgresTestServer.shared();
    // A session closed by one steward ends on the server a moment later: the next one waits for it.
    PostgresLocation location =
        PostgresLocation.parse(server.url(server.newDatabase()) + "?lock_wait_ms=20000");
    GrantChain chain =
        Jcp.issueRoot(
            caller,
            Jcp.identity(stewardKey),
            10_000_000,
            now.minusSeconds(60),
            now.plusSeconds(3600));
    Path live = tmp.resolve("live.snapshots");
    Path mid = tmp.resolve("mid.snapshots");
    List<ServeRequest> requests = new ArrayList<>();
    List<Presentation> spent = new ArrayList<>();
    try (Steward s = steward(PostgresJournal.open(location, name), live, true)) {
      for (int i = 0; i < 8; i++) {
        ServeRequest req = request("serve " + i);
        Presentation p = Jcp.present(caller, chain, req);
        s.serve(req, payload(req), p);
        requests.add(req);
        spent.add(p);
        if (i == 4) {
          JournalPosition at = s.snapshot();
          assertThat(at.count()).isPositive();
          copy(live, mid); // the snapshot before the last three serves
        }
      }
    }
    long total;
    try (PostgresJournal j = PostgresJournal.open(location, name)) {
      total = j.position().count();
    }

    Path kept = tmp.resolve("kept.snapshots");
    copy(mid, kept); // the restart below writes its closing snapshot into mid

    // From the mid snapshot plus the records committed after it, read from the database.
    ChainHead fromSnapshot;
    try (Steward s = steward(PostgresJournal.open(location, name), mid, false)) {
      fromSnapshot = s.head();
      for (int i = 0; i < spent.size(); i++) {
        ServeRequest req = requests.get(i);
        Presentation p = spent.get(i);
        assertThatThrownBy(() -> s.serve(req, payload(req), p))
            .as("presentation %d, spent %s the snapshot", i, i <= 4 ? "before" : "after")
            .isInstanceOf(ServeException.class);
      }
      ServeRequest req = request("after the restart");
      s.serve(req, payload(req), Jcp.present(caller, chain, req));
    }
    assertThat(fromSnapshot.nextSequence()).isEqualTo(8);

    // A full replay of the same database reaches the same head (one serve later).
    try (Steward s = steward(PostgresJournal.open(location, name), null, false)) {
      assertThat(s.head().nextSequence()).isEqualTo(9);
    }
    try (PostgresJournal j = PostgresJournal.open(location, name)) {
      assertThat(j.position().count()).isGreaterThan(total);
    }

    // The snapshot against another database's journal of the same steward: refused.
    PostgresLocation other =
        PostgresLocation.parse(server.url(server.newDatabase()) + "?lock_wait_ms=20000");
    try (Steward s = steward(PostgresJournal.open(other, name), null, true)) {
      for (int i = 0; i < 8; i++) {
        ServeRequest req = request("other " + i);
        s.serve(req, payload(req), Jcp.present(caller, chain, req));
      }
    }
    assertThatThrownBy(() -> steward(PostgresJournal.open(other, name), kept, false).close())
        .isInstanceOfSatisfying(
            StewardStartException.class,
            e -> assertThat(e.snapshotRefusal()).contains(SnapshotException.Reason.NOT_IN_JOURNAL));
  }
}
