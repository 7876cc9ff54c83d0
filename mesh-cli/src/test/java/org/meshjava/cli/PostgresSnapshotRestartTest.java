package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.meshjava.cli.PostgresServes.grant;
import static org.meshjava.cli.PostgresServes.payload;
import static org.meshjava.cli.PostgresServes.request;

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
import org.meshjava.core.ServeRequest;
import org.meshjava.core.crypto.SigningKey;
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
    return PostgresServes.steward(
        stewardKey,
        InstantSource.fixed(now),
        journal,
        snapshots == null ? null : new FileSnapshotStore(snapshots),
        fresh);
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
    GrantChain chain = grant(caller, stewardKey, now, 3600);
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
