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
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.jcp.GrantChain;
import org.meshjava.jcp.Jcp;
import org.meshjava.journal.JournalEntry;
import org.meshjava.journal.JournalRecord;
import org.meshjava.journal.internal.JournalFile;
import org.meshjava.journal.testing.ChildJava;
import org.meshjava.openai.GrantedServeRequest;
import org.meshjava.testpg.PostgresTestServer;

/**
 * Failover of a steward whose journal is in PostgreSQL, across processes that stand for machines
 * (§2.2): steward A serves granted requests and is SIGKILLed mid-load; steward B takes the lock and
 * continues the same chain with the same spend; B is then paused (SIGSTOP) long enough for its
 * lease to end, C takes over, and B, resumed, has every write refused. Nothing acknowledged is
 * lost, no presentation spends twice, the receipt chain runs on without a gap.
 */
class PostgresFailoverTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final long BUDGET_UJ = 500_000_000L;

  @TempDir Path tmp;

  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  /** Acknowledged receipts: envelope id by receipt sequence. */
  private final Map<Long, String> acknowledged = new ConcurrentHashMap<>();

  @Test
  @Timeout(value = 120, unit = TimeUnit.SECONDS)
  void killedSteward_isSucceeded_onTheSameChainAndSpend_andAPausedOneIsFenced() throws Exception {
    PostgresTestServer server = PostgresTestServer.shared();
    String url = server.url(server.newDatabase()) + "?lease_ms=2000&lock_wait_ms=40000";
    SigningKey stewardKey = SigningKey.generate();
    SigningKey callerKey = SigningKey.generate();
    Path keyFile = tmp.resolve("steward.key");
    KeyFile.write(keyFile, stewardKey, false);
    Path config = tmp.resolve("mesh.json");
    Files.writeString(
        config,
        """
        {"host": "127.0.0.1", "port": 0, "meter": "estimator",
         "backends": [{"type": "reference", "name": "small", "fidelity": "F1",
                       "uj_per_token": 40, "work_per_token": 1}]}""");
    Instant now = Instant.now();
    GrantChain grant =
        Jcp.issueRoot(
            callerKey,
            Jcp.identity(stewardKey),
            BUDGET_UJ,
            now.minusSeconds(60),
            now.plusSeconds(3600));

    // A: serves under load, then is killed outright.
    Steward a = start("a", url, keyFile, config, true);
    load(a, grant, callerKey, 20);
    AtomicBoolean stop = new AtomicBoolean();
    int loaded = acknowledged.size();
    ExecutorService pool = Executors.newFixedThreadPool(3);
    for (int i = 0; i < 3; i++) {
      pool.submit(
          () -> {
            while (!stop.get()) {
              serve(a, grant, callerKey);
            }
            return null;
          });
    }
    // The three are under way once a few of theirs are acknowledged.
    awaitAcknowledged(a, loaded + 6);
    a.process().destroyForcibly(); // SIGKILL, mid-load
    a.process().waitFor();
    stop.set(true);
    pool.shutdown();
    assertThat(pool.awaitTermination(20, TimeUnit.SECONDS)).isTrue();
    long ackedByA = acknowledged.size();
    assertThat(ackedByA).isGreaterThanOrEqualTo(20);

    // B: takes the lock once A's session is gone, continues the chain and the spend.
    Steward b = start("b", url, keyFile, config, false);
    load(b, grant, callerKey, 10);
    assertThat(acknowledged).hasSizeGreaterThanOrEqualTo((int) ackedByA + 10);

    // B paused: its session lapses after the lease, and C takes over.
    signal(b, "STOP");
    Steward c;
    try {
      c = start("c", url, keyFile, config, false);
    } finally {
      signal(b, "CONT");
    }
    load(c, grant, callerKey, 5);
    // B, resumed, still believes it is the steward; every granted serve it tries is refused.
    for (int i = 0; i < 3; i++) {
      HttpResponse<String> late = post(b, grant, callerKey);
      assertThat(late.statusCode()).as(late.body()).isEqualTo(503);
    }
    load(c, grant, callerKey, 5);
    stopGracefully(b);
    stopGracefully(c);

    // The journal: one chain that replays; every acknowledged receipt in it; no gap.
    MeshCommandTest.Run verify = mesh("journal", "verify", url);
    assertThat(verify.code()).as(verify.err()).isZero();
    assertThat(verify.out()).contains("form one chain and replay");
    Path exported = tmp.resolve("exported.journal");
    MeshCommandTest.Run export = mesh("journal", "export", url, "--out", exported.toString());
    assertThat(export.code()).as(export.err()).isZero();
    List<JournalRecord> records = JournalFile.read(exported).records();
    Map<Long, String> sealed = new java.util.HashMap<>();
    Set<String> spent = new HashSet<>();
    long debited = 0;
    for (JournalRecord r : records) {
      switch (r.entry()) {
        case JournalEntry.Sealed s -> sealed.put(s.sequence(), s.envelopeId().hex());
        case JournalEntry.Authorised au ->
            assertThat(spent.add(au.presentation().nonce().hex()))
                .as("presentation spent twice at record " + r.seq())
                .isTrue();
        case JournalEntry.Debited d -> debited += d.debitedUj();
        default -> {}
      }
    }
    for (Map.Entry<Long, String> e : acknowledged.entrySet()) {
      assertThat(sealed)
          .as("acknowledged receipt " + e.getKey())
          .containsEntry(e.getKey(), e.getValue());
    }
    // The chain of receipts has no gap: sequences 0 .. n-1, across all three stewards.
    assertThat(sealed.keySet())
        .containsExactlyInAnyOrderElementsOf(
            java.util.stream.LongStream.range(0, sealed.size()).boxed().toList());
    assertThat(acknowledged.keySet()).allMatch(s -> s < sealed.size());
    // Same spend: the last steward's view of what is left is the budget less every debit (and
    // the ceilings of serves cut off in flight, which stay debited).
    MeshCommandTest.Run inspect = mesh("journal", "inspect", url);
    assertThat(inspect.code()).as(inspect.err()).isZero();
    long left =
        Long.parseLong(
            inspect.out().replaceAll("(?s).*uJ of " + BUDGET_UJ + ", (\\d+) left.*", "$1"));
    assertThat(left).isLessThanOrEqualTo(BUDGET_UJ - debited);

    // The exported file imports into another database as the same journal.
    String other = server.url(server.newDatabase());
    MeshCommandTest.Run imported = mesh("journal", "import", exported.toString(), "--to", other);
    assertThat(imported.code()).as(imported.err()).isZero();
    MeshCommandTest.Run again = mesh("journal", "verify", other);
    assertThat(again.out()).contains(records.size() + " records form one chain");
  }

  record Steward(Process process, URI base, Path log) {}

  private final List<Process> started = new ArrayList<>();

  @org.junit.jupiter.api.AfterEach
  void killLeftovers() {
    for (Process p : started) {
      p.destroyForcibly();
    }
  }

  private Steward start(String name, String url, Path key, Path config, boolean fresh)
      throws Exception {
    Path portFile = tmp.resolve(name + ".port");
    Path log = tmp.resolve(name + ".log");
    List<String> cmd = new ArrayList<>();
    cmd.add(ProcessHandle.current().info().command().orElse("java"));
    cmd.add("-Xshare:auto");
    cmd.addAll(ChildJava.QUICK);
    cmd.addAll(List.of("-cp", classPath()));
    cmd.addAll(
        List.of(
            "org.meshjava.cli.Mesh",
            "serve",
            "--config",
            config.toString(),
            "--key",
            key.toString(),
            "--journal",
            url,
            "--port-file",
            portFile.toString()));
    if (fresh) {
      cmd.add("--fresh-chain");
    }
    Process p =
        new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    started.add(p);
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (!Files.exists(portFile) || Files.readString(portFile).isBlank()) {
      assertThat(p.isAlive()).as("steward " + name + " exited: " + Files.readString(log)).isTrue();
      assertThat(System.nanoTime())
          .as("steward " + name + " did not start: " + Files.readString(log))
          .isLessThan(deadline);
      Thread.sleep(50);
    }
    return new Steward(
        p, URI.create("http://127.0.0.1:" + Files.readString(portFile).strip()), log);
  }

  /** Serves until {@code n} more are acknowledged by {@code s}. */
  private void load(Steward s, GrantChain grant, SigningKey caller, int n) throws Exception {
    int want = acknowledged.size() + n;
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (acknowledged.size() < want) {
      assertThat(System.nanoTime()).as(Files.readString(s.log())).isLessThan(deadline);
      HttpResponse<String> r = post(s, grant, caller);
      assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    }
  }

  /** Waits until {@code n} receipts in all are acknowledged, by serves of other threads. */
  private void awaitAcknowledged(Steward s, int n) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (acknowledged.size() < n) {
      assertThat(System.nanoTime()).as(Files.readString(s.log())).isLessThan(deadline);
      Thread.sleep(5);
    }
  }

  /** One granted serve; an acknowledged one is recorded. Errors of a dying steward are ignored. */
  private void serve(Steward s, GrantChain grant, SigningKey caller) {
    try {
      post(s, grant, caller);
    } catch (Exception ignored) {
      // The steward was killed under this request: it was never acknowledged.
    }
  }

  private HttpResponse<String> post(Steward s, GrantChain grant, SigningKey caller)
      throws Exception {
    ObjectNode body =
        (ObjectNode)
            JSON.readTree(
                """
                {"model": "small", "max_tokens": 4,
                 "messages": [{"role": "user", "content": "failover"}],
                 "metadata": {"fidelity_floor": "F1", "joule_ceiling_uj": "100000"}}""");
    body.put(
        "jcp_presentation", Jcp.present(caller, grant, GrantedServeRequest.derive(body)).toHex());
    HttpResponse<String> r =
        http.send(
            HttpRequest.newBuilder(s.base().resolve("/v1/chat/completions"))
                .timeout(Duration.ofSeconds(20))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body.toString()))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    if (r.statusCode() == 200) {
      JsonNode energy = JSON.readTree(r.body()).get("usage").get("energy");
      String previous =
          acknowledged.put(
              energy.get("receipt").get("sequence").asLong(), energy.get("envelope_id").asText());
      assertThat(previous).as("a receipt sequence acknowledged twice").isNull();
    }
    return r;
  }

  private static void signal(Steward s, String signal) throws Exception {
    Process kill =
        new ProcessBuilder("kill", "-" + signal, Long.toString(s.process().pid()))
            .inheritIO()
            .start();
    assertThat(kill.waitFor()).isZero();
  }

  private static void stopGracefully(Steward s) throws Exception {
    s.process().destroy();
    if (!s.process().waitFor(20, TimeUnit.SECONDS)) {
      s.process().destroyForcibly();
    }
  }

  private static String classPath() {
    return ChildJava.classPath(Mesh.class);
  }
}
