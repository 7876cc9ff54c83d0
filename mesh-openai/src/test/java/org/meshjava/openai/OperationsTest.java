package org.meshjava.openai;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.journal.FileJournal;
import org.meshjava.journal.JournalException;
import org.meshjava.receipt.MeshReceipt;

/** GET /healthz, GET /readyz, GET /metrics, the request scope, and the drain before shutdown. */
class OperationsTest {
  @Test
  void healthz_isAlive_andReadyz_reportsJournalGrantsMeterAndChain() throws Exception {
    try (Fixture f = new Fixture()) {
      f.post("/v1/chat/completions", Fixture.chat("one"));
      Fixture.Answer alive = f.get("/healthz");
      assertThat(alive.status()).isEqualTo(200);
      assertThat(alive.json().get("status").asText()).isEqualTo("alive");

      Fixture.Answer ready = f.get("/readyz");
      assertThat(ready.status()).as(ready.body()).isEqualTo(200);
      JsonNode r = ready.json();
      assertThat(r.get("ready").asBoolean()).isTrue();
      assertThat(r.get("draining").asBoolean()).isFalse();
      JsonNode journal = r.get("journal");
      // The journal's location and a failure's text are the console's, not the API's (below).
      assertThat(journal.has("description")).isFalse();
      assertThat(journal.get("durable").asBoolean()).isFalse();
      assertThat(journal.get("locked").asBoolean()).isFalse();
      assertThat(journal.get("writable").asBoolean()).isTrue();
      assertThat(journal.has("refuses_appends")).isFalse();
      assertThat(r.get("grants").get("honoured").asBoolean()).isTrue();
      assertThat(r.get("grants").get("refused_because").isNull()).isTrue();
      assertThat(r.get("meter").get("name").asText()).isNotBlank();
      assertThat(r.get("meter").get("estimator_only").asBoolean()).isTrue();
      assertThat(r.get("meter").get("live_domains").isArray()).isTrue();
      assertThat(r.get("meter").get("counters").isArray()).isTrue();
      assertThat(r.get("chain").get("next_sequence").asLong()).isEqualTo(1);
      assertThat(r.get("chain").get("head").asText()).hasSize(64);

      f.get("/readyz");
      assertThat(f.post("/readyz", "{}").status()).isEqualTo(405);
      // No scrape configured: no /metrics.
      f.get("/metrics").error(404, "not_found");
    }
  }

  @Test
  void readyz_onTheApiListener_namesNoJournalFile_whichTheConsoleShowsItsOperator(@TempDir Path dir)
      throws Exception {
    Path journal = dir.resolve("operator-only.journal");
    try (Fixture f =
        new Fixture(
            SigningKey.generate(),
            b -> {
              try {
                b.journal(FileJournal.open(journal));
              } catch (JournalException e) {
                throw new IllegalStateException(e);
              }
            },
            b -> b.console("127.0.0.1", 0))) {
      f.post("/v1/chat/completions", Fixture.chat("one"));
      // The API listener may face the network: a stranger learns whether the steward is ready and
      // why not, never where its journal lives (a file, or a database's host and user).
      Fixture.Answer ready = f.get("/readyz");
      assertThat(ready.status()).as(ready.body()).isEqualTo(200);
      assertThat(ready.body()).doesNotContain(dir.toString()).doesNotContain("operator-only");
      JsonNode j = ready.json().get("journal");
      assertThat(j.get("durable").asBoolean()).isTrue();
      assertThat(j.get("locked").asBoolean()).isTrue();
      assertThat(j.get("writable").asBoolean()).isTrue();
      assertThat(j.has("description")).isFalse();
      assertThat(j.has("refuses_appends")).isFalse();

      URI status =
          URI.create(f.server.consoleUri().orElseThrow().toString().replaceAll("/console$", ""))
              .resolve("/v1/mesh/status");
      Fixture.Answer console = f.send(HttpRequest.newBuilder(status).GET());
      assertThat(console.status()).as(console.body()).isEqualTo(200);
      assertThat(console.json().get("journal").get("description").asText())
          .contains("operator-only.journal");
      assertThat(console.json().get("journal").has("refuses_appends")).isTrue();
    }
  }

  @Test
  void readyz_saysWhyGrantsAreRefused_whenAKeyHasNoDurableJournal() throws Exception {
    try (Fixture f = new Fixture(SigningKey.generate(), b -> {}, b -> {})) {
      JsonNode r = f.get("/readyz").json();
      assertThat(r.get("ready").asBoolean()).isTrue();
      assertThat(r.get("grants").get("honoured").asBoolean()).isFalse();
      assertThat(r.get("grants").get("refused_because").asText()).contains("not durable");
    }
  }

  @Test
  void metrics_servesTheScrapeAsPrometheusText() throws Exception {
    try (Fixture f = new Fixture(null, b -> {}, b -> b.metrics(() -> "mesh_up 1\n"))) {
      Fixture.Answer m = f.get("/metrics");
      assertThat(m.status()).isEqualTo(200);
      assertThat(m.contentType()).isEqualTo("text/plain; version=0.0.4; charset=utf-8");
      assertThat(m.body()).isEqualTo("mesh_up 1\n");
    }
  }

  @Test
  void theRequestScope_isOpenedAroundEachV1Request_withItsHeadersAndStatus() throws Exception {
    List<String> seen = new CopyOnWriteArrayList<>();
    RequestScope scope =
        (method, path, header) -> {
          seen.add("open " + method + " " + path + " " + header.apply("traceparent"));
          return new RequestScope.Opened() {
            @Override
            public void status(int status) {
              seen.add("status " + status);
            }

            @Override
            public void close() {
              seen.add("close");
            }
          };
        };
    try (Fixture f = new Fixture(null, b -> {}, b -> b.requestScope(scope))) {
      String traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
      HttpResponse<String> r =
          f.http.send(
              HttpRequest.newBuilder(f.uri("/v1/chat/completions"))
                  .header("Content-Type", "application/json")
                  .header("traceparent", traceparent)
                  .POST(
                      HttpRequest.BodyPublishers.ofString(
                          Fixture.chat("hi").toString(), StandardCharsets.UTF_8))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(r.statusCode()).isEqualTo(200);
      f.get("/healthz");
      assertThat(seen)
          .containsExactly("open POST /v1/chat/completions " + traceparent, "status 200", "close");
    }
  }

  @Test
  void aRequestScopeWhoseStatusThrows_isIgnored_andEveryStreamIsStillAnsweredAndItsSlotFreed()
      throws Exception {
    RequestScope scope =
        (method, path, header) ->
            new RequestScope.Opened() {
              @Override
              public void status(int status) {
                throw new IllegalStateException("tracing backend down");
              }

              @Override
              public void close() {}
            };
    // One serve at a time: a stream whose slot leaked would leave every later one 429.
    try (Fixture f =
        new Fixture(null, b -> {}, b -> b.requestScope(scope).maxConcurrentServes(1))) {
      for (int i = 0; i < 3; i++) {
        com.fasterxml.jackson.databind.node.ObjectNode body = Fixture.chat("hi " + i);
        body.put("stream", true);
        HttpResponse<String> r =
            f.http.send(
                HttpRequest.newBuilder(f.uri("/v1/chat/completions"))
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(body.toString()))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        assertThat(r.body()).contains("data: [DONE]");
      }
    }
  }

  /**
   * Regression: the request scope's calls were contained for a RuntimeException only. An Error from
   * the application's scope (a tracing class missing at run time, an assertion) thrown by open
   * escaped before the answer was counted out, so the request was answered 500 by Jetty and stayed
   * in flight for good, and a drain never finished; thrown by status, it turned a served reply into
   * a 500.
   */
  @Test
  void aRequestScopeThatThrowsAnError_isIgnored_theRequestServedAndCountedOut() throws Exception {
    RequestScope opening =
        ThrowingScopes.opening(() -> new NoClassDefFoundError("io/opentelemetry/api/trace/Span"));
    RequestScope telling =
        ThrowingScopes.telling(
            () -> new AssertionError("status told twice"),
            () -> new AssertionError("closed twice"));
    for (RequestScope scope : List.of(opening, telling)) {
      try (Fixture f = new Fixture(null, b -> {}, b -> b.requestScope(scope))) {
        assertThat(f.post("/v1/chat/completions", Fixture.chat("hi")).status()).isEqualTo(200);
        Fixture.Answer streamed =
            f.post("/v1/chat/completions", Fixture.chat("hi").put("stream", true));
        assertThat(streamed.status()).as(streamed.body()).isEqualTo(200);
        assertThat(streamed.body()).contains("data: [DONE]");
        assertThat(f.server.drain(Duration.ofSeconds(5))).as("drained").isTrue();
      }
    }
  }

  /**
   * Regression: the scope's throws were logged with their trace, and a throwable whose words throw
   * (foreign code's {@code toString} or {@code getStackTrace}, here its cause's) threw out of that
   * logging: out of {@code status}, in place of the served reply; out of {@code close}, out of the
   * answer after it. Logged by {@link org.meshjava.core.internal.ThrowableWords#log}, each is
   * ignored, the requests served, whole and streamed, and counted out.
   */
  @Test
  void aRequestScopeThatThrowsAnUnprintableError_isIgnored_theRequestServedAndCountedOut()
      throws Exception {
    Supplier<Error> unprintable =
        () -> new AssertionError("the scope failed", new UnprintableException());
    RequestScope opening = ThrowingScopes.opening(unprintable);
    RequestScope telling = ThrowingScopes.telling(unprintable, unprintable);
    for (RequestScope scope : List.of(opening, telling)) {
      try (Fixture f = new Fixture(null, b -> {}, b -> b.requestScope(scope))) {
        for (int i = 0; i < 2; i++) {
          Fixture.Answer whole = f.post("/v1/chat/completions", Fixture.chat("hi"));
          assertThat(whole.status()).as(whole.body()).isEqualTo(200);
          Fixture.Answer streamed =
              f.post("/v1/chat/completions", Fixture.chat("hi").put("stream", true));
          assertThat(streamed.status()).as(streamed.body()).isEqualTo(200);
          assertThat(streamed.body()).contains("data: [DONE]");
        }
        assertThat(f.server.drain(Duration.ofSeconds(5))).as("drained").isTrue();
      }
    }
  }

  @Test
  void drain_refusesNewPostsWith503_letsTheServeInFlightFinishWithItsReceipt() throws Exception {
    HeldEngine held = new HeldEngine(4, 1);
    try (Fixture f = new Fixture(SigningKey.generate(), b -> b.backend(held), b -> {})) {
      CompletableFuture<HttpResponse<String>> inFlight =
          f.http.sendAsync(
              HttpRequest.newBuilder(f.uri("/v1/chat/completions"))
                  .header("Content-Type", "application/json")
                  .POST(HttpRequest.BodyPublishers.ofString(Fixture.chat("slow").toString()))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(held.entered.await(20, TimeUnit.SECONDS)).isTrue();
      assertThat(f.server.inFlight()).isEqualTo(1);

      CompletableFuture<Boolean> drained =
          CompletableFuture.supplyAsync(
              () -> {
                try {
                  return f.server.drain(Duration.ofSeconds(20));
                } catch (InterruptedException e) {
                  throw new IllegalStateException(e);
                }
              });
      // Wait until draining has begun, then a new request is refused with a typed body.
      while (!f.get("/readyz").json().get("draining").asBoolean()) {
        Thread.sleep(10);
      }
      Fixture.Answer ready = f.get("/readyz");
      assertThat(ready.status()).isEqualTo(503);
      assertThat(ready.json().get("ready").asBoolean()).isFalse();
      f.post("/v1/chat/completions", Fixture.chat("late")).error(503, "shutting_down");
      assertThat(f.get("/healthz").status()).isEqualTo(200);
      assertThat(drained).isNotDone();

      held.release.countDown();
      HttpResponse<String> done = inFlight.get(20, TimeUnit.SECONDS);
      assertThat(done.statusCode()).as(done.body()).isEqualTo(200);
      MeshReceipt receipt =
          Fixture.verifiedReceipt(Fixture.JSON.readTree(done.body()).get("usage").get("energy"));
      assertThat(receipt.sequence()).isZero();
      assertThat(drained.get(20, TimeUnit.SECONDS)).isTrue();
      assertThat(f.server.inFlight()).isZero();
    }
  }

  @Test
  void drain_whenTheGraceRunsOut_saysSo() throws Exception {
    HeldEngine held = new HeldEngine(4, 1);
    try (Fixture f = new Fixture(null, b -> b.backend(held), b -> {})) {
      CompletableFuture<HttpResponse<String>> inFlight =
          f.http.sendAsync(
              HttpRequest.newBuilder(f.uri("/v1/chat/completions"))
                  .header("Content-Type", "application/json")
                  .POST(HttpRequest.BodyPublishers.ofString(Fixture.chat("slow").toString()))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(held.entered.await(20, TimeUnit.SECONDS)).isTrue();
      assertThat(f.server.drain(Duration.ofMillis(200))).isFalse();
      held.release.countDown();
      assertThat(inFlight.get(20, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
    }
  }
}
