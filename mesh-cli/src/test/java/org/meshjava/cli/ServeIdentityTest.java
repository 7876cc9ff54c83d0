package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.meshjava.cli.MeshCommandTest.mesh;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.cli.MeshCommandTest.Run;

/**
 * {@code mesh serve} with a key file: grants only over a durable journal, and a receipt chain that
 * starts at 0 only when the operator says {@code --fresh-chain} (§2.2, §6.3). Regression: {@code
 * mesh serve --key K} without {@code --journal} only warned, honoured grants from memory, and
 * started the key's chain at 0 on every start.
 */
class ServeIdentityTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path tmp;

  /** A running {@code mesh serve} and its base URI. */
  private record Server(Thread thread, AtomicReference<Run> run, URI base)
      implements AutoCloseable {
    @Override
    public void close() throws InterruptedException {
      thread.interrupt();
      thread.join(10_000);
    }
  }

  private Path config() throws Exception {
    Path config = tmp.resolve("mesh.json");
    Files.writeString(
        config,
        """
        {"host": "127.0.0.1", "port": 0, "meter": "estimator",
         "backends": [{"type": "reference", "name": "small", "fidelity": "F1", "uj_per_token": 40,
                       "work_per_token": 1}]}""");
    return config;
  }

  private String key() throws Exception {
    Run r = mesh("key", "generate", "--out", tmp.resolve("steward.key").toString());
    assertThat(r.code()).as(r.err()).isZero();
    return r.out().strip();
  }

  private List<String> serveArgs(String... extra) throws Exception {
    List<String> args =
        new ArrayList<>(
            List.of(
                "serve",
                "--config",
                config().toString(),
                "--key",
                tmp.resolve("steward.key").toString()));
    args.addAll(List.of(extra));
    return args;
  }

  private Server start(List<String> args) throws Exception {
    Path portFile = tmp.resolve("port-" + System.nanoTime());
    List<String> all = new ArrayList<>(args);
    all.addAll(List.of("--port-file", portFile.toString()));
    AtomicReference<Run> run = new AtomicReference<>();
    Thread t = new Thread(() -> run.set(mesh(all.toArray(String[]::new))));
    t.start();
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (!Files.exists(portFile) || Files.readString(portFile).isBlank()) {
      assertThat(run.get()).as("server stopped: %s", run.get()).isNull();
      assertThat(System.nanoTime()).as("server did not start").isLessThan(deadline);
      Thread.sleep(20);
    }
    return new Server(t, run, URI.create("http://127.0.0.1:" + Files.readString(portFile).strip()));
  }

  /**
   * Runs a {@code mesh serve} that should refuse to start. One that starts anyway would serve until
   * interrupted, so it is stopped after a while and the test fails rather than hangs.
   */
  private static Run refusedStart(List<String> args) throws Exception {
    AtomicReference<Run> run = new AtomicReference<>();
    Thread t = new Thread(() -> run.set(mesh(args.toArray(String[]::new))));
    t.start();
    t.join(Duration.ofSeconds(30));
    if (t.isAlive()) {
      t.interrupt();
      t.join(10_000);
      throw new AssertionError("mesh serve started although it should have refused: " + run.get());
    }
    return run.get();
  }

  private static HttpResponse<String> post(URI base, String body) throws Exception {
    return HttpClient.newHttpClient()
        .send(
            HttpRequest.newBuilder(base.resolve("/v1/chat/completions"))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .build(),
            HttpResponse.BodyHandlers.ofString());
  }

  private static JsonNode steward(URI base) throws Exception {
    return JSON.readTree(
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(base.resolve("/v1/mesh/steward")).build(),
                HttpResponse.BodyHandlers.ofString())
            .body());
  }

  private static final String UNGRANTED =
      "{\"max_tokens\": 4, \"messages\": [{\"role\": \"user\", \"content\": \"Hello.\"}]}";

  @Test
  void keyWithoutJournalOrFreshChain_refusesToStart_sayingWhatToPass() throws Exception {
    key();
    Run r = refusedStart(serveArgs());
    assertThat(r.code()).isEqualTo(1);
    assertThat(r.err()).contains("warning: no journal").contains("journal_not_durable");
    assertThat(r.err().lines().filter(l -> l.startsWith("mesh serve: ")))
        .singleElement(org.assertj.core.api.InstanceOfAssertFactories.STRING)
        .contains("--fresh-chain");
  }

  @Test
  void keyWithANewJournal_refusesToStartWithoutFreshChain_andLeavesNoJournal() throws Exception {
    key();
    Path journal = tmp.resolve("steward.journal");
    Run r = refusedStart(serveArgs("--journal", journal.toString()));
    assertThat(r.code()).isEqualTo(1);
    assertThat(r.err()).contains("records no receipt").contains("--fresh-chain");
    assertThat(journal).doesNotExist();
  }

  @Test
  void keyWithFreshChainButNoJournal_servesUngranted_andRefusesGrants503() throws Exception {
    String did = key();
    key("caller.key");
    Path root = tmp.resolve("root.hex");
    assertThat(
            mesh(
                    "grant",
                    "issue",
                    "--issuer-key",
                    tmp.resolve("caller.key").toString(),
                    "--subject",
                    did,
                    "--budget-uj",
                    "2000000",
                    "--expires",
                    "PT1H",
                    "--out",
                    root.toString())
                .code())
        .isZero();
    Path body = tmp.resolve("body.json");
    Files.writeString(
        body,
        """
        {"max_tokens": 4, "messages": [{"role": "user", "content": "Granted?"}],
         "metadata": {"fidelity_floor": "F1", "joule_ceiling_uj": "100000"}}""");
    Path granted = tmp.resolve("granted.json");
    Run p =
        mesh(
            "grant",
            "present",
            "--caller-key",
            tmp.resolve("caller.key").toString(),
            "--chain",
            root.toString(),
            "--body",
            body.toString(),
            "--out",
            tmp.resolve("p.hex").toString(),
            "--out-body",
            granted.toString());
    assertThat(p.code()).as(p.err()).isZero();

    try (Server s = start(serveArgs("--fresh-chain"))) {
      HttpResponse<String> refused = post(s.base(), Files.readString(granted));
      assertThat(refused.statusCode()).as(refused.body()).isEqualTo(503);
      assertThat(JSON.readTree(refused.body()).get("error").get("code").asText())
          .isEqualTo("journal_not_durable");
      assertThat(steward(s.base()).get("grants_honoured").asBoolean()).isFalse();
      assertThat(post(s.base(), UNGRANTED).statusCode()).isEqualTo(200);
    }
  }

  @Test
  void keyWithAJournal_startsFresh_onceAsked_thenRestartsFromItsJournal() throws Exception {
    key();
    Path journal = tmp.resolve("steward.journal");
    try (Server s = start(serveArgs("--journal", journal.toString(), "--fresh-chain"))) {
      assertThat(steward(s.base()).get("grants_honoured").asBoolean()).isTrue();
      assertThat(post(s.base(), UNGRANTED).statusCode()).isEqualTo(200);
    }
    try (Server s = start(serveArgs("--journal", journal.toString()))) {
      assertThat(steward(s.base()).get("next_sequence").asLong()).isEqualTo(1);
    }
    // Saying --fresh-chain to a journal that records receipts contradicts it.
    Run again = refusedStart(serveArgs("--journal", journal.toString(), "--fresh-chain"));
    assertThat(again.code()).isEqualTo(1);
    // Regression: in the steward builder's words ("the chainHead given (next receipt 0) conflicts
    // with journal ..."), which name no flag of mesh serve until the end.
    assertThat(again.err())
        .contains("--fresh-chain starts this key's receipt chain at 0, but journal ")
        .contains("already records its receipts up to 0")
        .contains("drop --fresh-chain")
        .doesNotContain("chainHead")
        .doesNotContain("ChainHead[");
  }

  private void key(String name) throws Exception {
    Run r = mesh("key", "generate", "--out", tmp.resolve(name).toString());
    assertThat(r.code()).as(r.err()).isZero();
  }
}
