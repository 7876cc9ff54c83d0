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
 * The README's "Sharding a budget across stewards" example, command for command: two stewards, a
 * budget sharded between them (§2.1), one shard spent until its steward refuses it with {@code
 * budget-exhausted}, and the client going on with the other shard at the other steward.
 */
class ShardedStewardsTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path tmp;

  private String file(String name) {
    return tmp.resolve(name).toString();
  }

  private String ok(String... args) {
    Run r = mesh(args);
    assertThat(r.code()).as(String.join(" ", args) + ": " + r.err()).isZero();
    return r.out().strip();
  }

  @Test
  void aShardRunDry_isRefusedTyped_andTheClientGoesOnAtTheOtherShard() throws Exception {
    String s1 = ok("key", "generate", "--out", file("s1.key"));
    String s2 = ok("key", "generate", "--out", file("s2.key"));
    ok("key", "generate", "--out", file("org.key"));
    String caller = ok("key", "generate", "--out", file("caller.key"));
    ok(
        "grant",
        "issue",
        "--issuer-key",
        file("org.key"),
        "--subject",
        caller,
        "--budget-uj",
        "200000",
        "--expires",
        "PT1H",
        "--out",
        file("team.hex"));
    ok(
        "grant",
        "shard",
        "--holder-key",
        file("caller.key"),
        "--chain",
        file("team.hex"),
        "--share",
        s1 + "=100000",
        "--share",
        s2 + "=100000",
        "--out-dir",
        file("shards"));
    Files.writeString(
        tmp.resolve("body.json"),
        """
        {"model": "small", "max_tokens": 8,
         "messages": [{"role": "user", "content": "hello, shard"}],
         "metadata": {"fidelity_floor": "F1", "joule_ceiling_uj": "100000"}}""");
    Files.writeString(
        tmp.resolve("mesh.json"),
        """
        {"host": "127.0.0.1", "port": 0, "meter": "estimator",
         "backends": [{"type": "reference", "name": "small", "fidelity": "F1",
                       "uj_per_token": 40, "work_per_token": 1}]}""");
    List<Thread> servers = new ArrayList<>();
    List<AtomicReference<Run>> runs = new ArrayList<>();
    try {
      URI[] base = new URI[2];
      for (int i = 0; i < 2; i++) {
        String n = "s" + (i + 1);
        AtomicReference<Run> run = new AtomicReference<>();
        Thread t =
            new Thread(
                () ->
                    run.set(
                        mesh(
                            "serve",
                            "--config",
                            file("mesh.json"),
                            "--key",
                            file(n + ".key"),
                            "--journal",
                            file(n + ".journal"),
                            "--fresh-chain",
                            "--port-file",
                            file(n + ".port"))));
        t.start();
        servers.add(t);
        runs.add(run);
        Path port = tmp.resolve(n + ".port");
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (!Files.exists(port) || Files.readString(port).isBlank()) {
          assertThat(System.nanoTime()).as("steward " + n + ": " + run.get()).isLessThan(deadline);
          Thread.sleep(20);
        }
        base[i] = URI.create("http://127.0.0.1:" + Files.readString(port).strip());
      }

      // Shard 1 at steward 1 until it runs dry.
      HttpResponse<String> first = present(base[0], "shards/shard-1.hex");
      assertThat(first.statusCode()).as(first.body()).isEqualTo(200);
      HttpResponse<String> dry = present(base[0], "shards/shard-1.hex");
      assertThat(dry.statusCode()).as(dry.body()).isEqualTo(403);
      JsonNode error = JSON.readTree(dry.body()).get("error");
      assertThat(error.get("type").asText()).isEqualTo("permission_error");
      assertThat(error.get("code").asText()).isEqualTo("budget-exhausted");
      // The shard is the steward's own: steward 2 refuses it (it is not its holder).
      HttpResponse<String> elsewhere = present(base[1], "shards/shard-1.hex");
      assertThat(elsewhere.statusCode()).isEqualTo(403);
      assertThat(JSON.readTree(elsewhere.body()).get("error").get("code").asText())
          .isEqualTo("wrong-holder");
      // The client goes on with its other shard, at the other steward.
      HttpResponse<String> retried = present(base[1], "shards/shard-2.hex");
      assertThat(retried.statusCode()).as(retried.body()).isEqualTo(200);
    } finally {
      servers.forEach(Thread::interrupt);
      for (Thread t : servers) {
        t.join(10_000);
      }
    }
    for (AtomicReference<Run> r : runs) {
      assertThat(r.get().code()).as(r.get().err()).isZero();
    }
  }

  /** {@code mesh grant present … --out-body}, then POST the body, as the README's client does. */
  private HttpResponse<String> present(URI base, String shard) throws Exception {
    Files.deleteIfExists(tmp.resolve("p.hex"));
    Files.deleteIfExists(tmp.resolve("granted.json"));
    ok(
        "grant",
        "present",
        "--caller-key",
        file("caller.key"),
        "--chain",
        file(shard),
        "--body",
        file("body.json"),
        "--out",
        file("p.hex"),
        "--out-body",
        file("granted.json"));
    return HttpClient.newHttpClient()
        .send(
            HttpRequest.newBuilder(base.resolve("/v1/chat/completions"))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofFile(tmp.resolve("granted.json")))
                .build(),
            HttpResponse.BodyHandlers.ofString());
  }
}
