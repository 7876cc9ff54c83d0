package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.meshjava.cli.PostgresServes.payload;
import static org.meshjava.cli.PostgresServes.request;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.jcp.GrantChain;
import org.meshjava.jcp.Jcp;
import org.meshjava.jcp.Presentation;
import org.meshjava.journal.Snapshot;
import org.meshjava.journal.SnapshotStore;
import org.meshjava.journal.postgres.PostgresJournal;
import org.meshjava.journal.postgres.PostgresLocation;
import org.meshjava.journal.postgres.PostgresSnapshotStore;
import org.meshjava.steward.ServeException;
import org.meshjava.steward.Steward;
import org.meshjava.testpg.PostgresTestServer;

/**
 * Callers that take a grant per call, each short-lived, at a steward on the PostgreSQL journal: its
 * snapshots hold only the chains still presentable, it restarts from the snapshot table and from
 * the whole journal, and the journal tools read, copy and check such a journal.
 */
class PostgresGrantPerCallTest {
  static final int CALLS = 120;

  @TempDir Path tmp;

  private final SigningKey stewardKey = SigningKey.generate();
  private final SigningKey caller = SigningKey.generate();
  private final AtomicReference<Instant> now =
      new AtomicReference<>(Instant.ofEpochSecond(Instant.now().getEpochSecond()));
  private final String name = Jcp.identity(stewardKey).value();

  private Steward steward(PostgresLocation at, @Nullable SnapshotStore snapshots, boolean fresh)
      throws Exception {
    return PostgresServes.steward(
        stewardKey, now::get, PostgresJournal.open(at, name), snapshots, fresh);
  }

  /** A grant that lives ten seconds: one per call. */
  private GrantChain grant() throws Exception {
    Instant t = now.get();
    return PostgresServes.grant(caller, stewardKey, t, 10);
  }

  private Presentation serve(Steward s, String prompt) throws Exception {
    ServeRequest req = request(prompt);
    Presentation p = Jcp.present(caller, grant(), req);
    s.serve(req, payload(req), p);
    return p;
  }

  private static void mesh(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int rc = Mesh.run(new PrintWriter(out, true), new PrintWriter(err, true), args);
    assertThat(rc).as("mesh %s: %s%s", String.join(" ", args), out, err).isZero();
  }

  @Test
  @Timeout(300)
  void aGrantPerCall_snapshotsHoldOnlyLiveChains_andEveryRestartAndToolReadsTheJournal()
      throws Exception {
    PostgresTestServer server = PostgresTestServer.shared();
    String url = server.url(server.newDatabase());
    PostgresLocation at = PostgresLocation.parse(url + "?lock_wait_ms=20000");
    SnapshotStore snapshots = PostgresSnapshotStore.of(at, name);
    ServeRequest lastRequest = null;
    Presentation last = null;
    try (Steward s = steward(at, snapshots, true)) {
      for (int i = 0; i < CALLS; i++) {
        lastRequest = request("call " + i);
        last = Jcp.present(caller, grant(), lastRequest);
        s.serve(lastRequest, payload(lastRequest), last);
        now.set(now.get().plusSeconds(3));
        if (i % 40 == 39) {
          s.snapshot();
        }
      }
    }
    Snapshot saved = Snapshot.openAsNamed(snapshots.latest().orElseThrow());
    // Ten-second grants, a call every three seconds: at most four still presentable.
    assertThat(saved.state().chains()).hasSizeLessThanOrEqualTo(4);

    ServeRequest spentRequest = lastRequest;
    Presentation spent = last;
    long sealed = CALLS;
    for (SnapshotStore from : new SnapshotStore[] {snapshots, null}) {
      try (Steward s = steward(at, from, false)) {
        assertThat(s.head().nextSequence()).isEqualTo(sealed);
        assertThatThrownBy(() -> s.serve(spentRequest, payload(spentRequest), spent))
            .isInstanceOf(ServeException.class);
        serve(s, "after a restart " + (from == null ? "from the journal" : "from a snapshot"));
        sealed++;
      }
    }

    mesh("journal", "verify", url);
    Path file = tmp.resolve("copy.journal");
    mesh("journal", "export", url, "--out", file.toString());
    String other = server.url(server.newDatabase());
    mesh("journal", "import", file.toString(), "--to", other);
    mesh("journal", "verify", other);
    mesh("journal", "verify", file.toString());
  }
}
