package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.meshjava.cli.MeshCommandTest.mesh;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.cli.MeshCommandTest.Run;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.core.identity.DidKey;
import org.meshjava.jcp.GrantChain;
import org.meshjava.jcp.Jcp;
import org.meshjava.journal.Snapshot;
import org.meshjava.journal.postgres.PostgresJournal;
import org.meshjava.journal.postgres.PostgresLocation;
import org.meshjava.journal.postgres.PostgresSnapshotStore;
import org.meshjava.openai.GrantedServeRequest;
import org.meshjava.testpg.PostgresTestServer;

/**
 * {@code mesh serve --journal postgresql://…} keeps its snapshots in the journal's database (issue
 * 19, SPEC.md §60.8), so a steward with no disk restarts from one: the spend and the spent
 * presentations survive, a changed snapshot stops the start, and a snapshot of another database's
 * journal or of another steward is refused.
 */
class ServePostgresSnapshotTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path tmp;

  private final HttpClient http = HttpClient.newHttpClient();
  private final SigningKey caller = SigningKey.generate();

  /** A running {@code mesh serve}: its thread, what it printed once stopped, and its address. */
  private record Serving(Thread thread, AtomicReference<Run> run, URI base) {
    Run stop() throws InterruptedException {
      thread.interrupt();
      thread.join(20_000);
      assertThat(thread.isAlive()).as("mesh serve did not stop").isFalse();
      return run.get();
    }
  }

  private Path config() throws Exception {
    Path config = tmp.resolve("mesh.json");
    Files.writeString(
        config,
        """
        {"host": "127.0.0.1", "port": 0, "meter": "estimator",
         "snapshots": {"every_records": 6},
         "backends": [{"type": "reference", "name": "small", "fidelity": "F1",
                       "uj_per_token": 40, "work_per_token": 1}]}""");
    return config;
  }

  private static List<String> args(Path key, String url, boolean fresh, String... more)
      throws Exception {
    List<String> a = new ArrayList<>(List.of("serve", "--key", key.toString(), "--journal", url));
    a.addAll(List.of(more));
    if (fresh) {
      a.add("--fresh-chain");
    }
    return a;
  }

  private Serving start(Path key, String url, boolean fresh) throws Exception {
    Path portFile = Files.createTempFile(tmp, "port", "");
    Files.delete(portFile);
    List<String> a =
        args(key, url, fresh, "--config", config().toString(), "--port-file", portFile.toString());
    AtomicReference<Run> run = new AtomicReference<>();
    Thread t = new Thread(() -> run.set(mesh(a.toArray(String[]::new))));
    t.start();
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (!Files.exists(portFile) || Files.readString(portFile).isBlank()) {
      assertThat(run.get()).as("mesh serve exited").isNull();
      assertThat(System.nanoTime()).as("mesh serve did not start").isLessThan(deadline);
      Thread.sleep(20);
    }
    return new Serving(
        t, run, URI.create("http://127.0.0.1:" + Files.readString(portFile).strip()));
  }

  /** A start that is refused: its exit code and error. */
  private Run refusedStart(Path key, String url) throws Exception {
    Run r =
        mesh(
            args(key, url, false, "--config", config().toString(), "--port", "0")
                .toArray(String[]::new));
    assertThat(r.code()).as(r.out()).isEqualTo(1);
    return r;
  }

  /** A granted chat body with a fresh presentation of {@code grant}. */
  private String granted(GrantChain grant, String prompt) throws Exception {
    ObjectNode body =
        (ObjectNode)
            JSON.readTree(
                """
                {"model": "small", "max_tokens": 4,
                 "messages": [{"role": "user", "content": "%s"}],
                 "metadata": {"fidelity_floor": "F1", "joule_ceiling_uj": "100000"}}"""
                    .formatted(prompt));
    body.put(
        "jcp_presentation", Jcp.present(caller, grant, GrantedServeRequest.derive(body)).toHex());
    return body.toString();
  }

  private HttpResponse<String> post(Serving s, String body) throws Exception {
    return http.send(
        HttpRequest.newBuilder(s.base().resolve("/v1/chat/completions"))
            .timeout(Duration.ofSeconds(20))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static JsonNode receipt(HttpResponse<String> r) throws Exception {
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    return JSON.readTree(r.body()).get("usage").get("energy").get("receipt");
  }

  private GrantChain grantTo(String steward) throws Exception {
    Instant now = Instant.now();
    return Jcp.issueRoot(
        caller, DidKey.parse(steward), 50_000_000, now.minusSeconds(60), now.plusSeconds(3600));
  }

  private String keyFile(String name) throws Exception {
    Run r = mesh("key", "generate", "--out", tmp.resolve(name).toString());
    assertThat(r.code()).as(r.err()).isZero();
    return r.out().strip();
  }

  /** Stores {@code bytes} as journal {@code journal}'s latest snapshot, as an attacker might. */
  private static void plant(PostgresTestServer server, String db, String journal, byte[] bytes)
      throws Exception {
    try (Connection c = server.connect(db);
        PreparedStatement ps =
            c.prepareStatement(
                "INSERT INTO mesh_journal_snapshot (journal, count, snapshot)"
                    + " VALUES (?, 1000000, ?)")) {
      ps.setString(1, journal);
      ps.setBytes(2, bytes);
      ps.executeUpdate();
    }
  }

  @Test
  @Timeout(value = 240, unit = TimeUnit.SECONDS)
  void serve_onAPostgresJournal_restartsFromASnapshotInTheDatabase_andRefusesAForeignOne()
      throws Exception {
    PostgresTestServer server = PostgresTestServer.shared();
    String db = server.newDatabase();
    // A session closed by one steward ends on the server a moment later: the next one waits.
    String url = server.url(db) + "?lock_wait_ms=20000";
    PostgresLocation location = PostgresLocation.parse(url);
    String steward = keyFile("steward.key");
    Path key = tmp.resolve("steward.key");
    GrantChain grant = grantTo(steward);
    PostgresSnapshotStore store = PostgresSnapshotStore.of(location, steward);
    assertThat(store.latest()).isEmpty();

    // First run: five granted serves (a snapshot every six records, and one on close).
    List<String> spent = new ArrayList<>();
    Serving first = start(key, url, true);
    for (int i = 0; i < 5; i++) {
      String body = granted(grant, "before the restart " + i);
      assertThat(receipt(post(first, body)).get("sequence").asLong()).isEqualTo(i);
      spent.add(body);
    }
    Run stopped = first.stop();
    assertThat(stopped.code()).as(stopped.err()).isZero();

    // The closing snapshot is in the database and covers every record written.
    long records = PostgresJournal.readLines(location, steward).size();
    byte[] saved = store.latest().orElseThrow();
    Snapshot snapshot = Snapshot.open(saved, DidKey.parse(steward));
    assertThat(snapshot.position().count()).isEqualTo(records);
    assertThat(snapshot.state().lastSealed()).isPresent();

    // Restart from it: every presentation spent before is still refused, and the chain goes on.
    Serving second = start(key, url, false);
    for (String body : spent) {
      HttpResponse<String> again = post(second, body);
      assertThat(again.statusCode()).as(again.body()).isNotEqualTo(200);
      assertThat(again.body()).containsIgnoringCase("spent");
    }
    assertThat(receipt(post(second, granted(grant, "after the restart"))).get("sequence").asLong())
        .isEqualTo(5);
    assertThat(second.stop().code()).isZero();

    // The start reads the snapshot: one altered in the database stops it rather than being skipped.
    byte[] latest = store.latest().orElseThrow();
    byte[] altered = latest.clone();
    altered[altered.length - 1] ^= 1; // the signature's last byte
    plant(server, db, steward, altered);
    Run tampered = refusedStart(key, url);
    assertThat(tampered.err())
        .contains("the latest snapshot in " + store.describe())
        .contains("is refused")
        .contains("(bad_signature)")
        .contains("its signature does not verify");

    // Another database's journal of the same steward: its history is not this snapshot's.
    String otherDb = server.newDatabase();
    String otherUrl = server.url(otherDb) + "?lock_wait_ms=20000";
    Serving elsewhere = start(key, otherUrl, true);
    for (int i = 0; i < 10; i++) {
      receipt(post(elsewhere, granted(grant, "elsewhere " + i)));
    }
    assertThat(elsewhere.stop().code()).isZero();
    plant(server, otherDb, steward, latest);
    assertThat(refusedStart(key, otherUrl).err())
        .contains("records a history this journal does not hold")
        .contains("(not_in_journal)");

    // Another steward's journal in the first database: the snapshot is not its own.
    String otherSteward = keyFile("other.key");
    Path otherKey = tmp.resolve("other.key");
    Serving other = start(otherKey, url, true);
    receipt(post(other, granted(grantTo(otherSteward), "another steward")));
    assertThat(other.stop().code()).isZero();
    plant(server, db, otherSteward, latest);
    assertThat(refusedStart(otherKey, url).err())
        .contains("is another steward's")
        .contains("(other_steward)")
        .contains("it is steward " + steward + "'s, not " + otherSteward + "'s");
  }
}
