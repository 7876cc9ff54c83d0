package org.meshjava.openai;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.meshjava.core.CostProfile;
import org.meshjava.core.EngineResult;
import org.meshjava.core.Fidelity;
import org.meshjava.core.Recipe;
import org.meshjava.core.ServeConcurrency;
import org.meshjava.core.ServeOutcome;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.ServingEngine;
import org.meshjava.core.TokenSequence;
import org.meshjava.core.TokenSink;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.engine.ReferenceEngine;

/**
 * Concurrency limits belong to backends (issue 21): a local engine is bound by cores, an upstream
 * by what it accepts (64 unless configured), a full backend answers 429 with {@code Retry-After},
 * and a streaming client that stops reading gives its serve back after the write timeout.
 */
final class BackendConcurrencyTest {

  /** A cheap streaming backend that produces tokens until its sink says stop. */
  private static final class EndlessEngine implements ServingEngine {
    final AtomicInteger running = new AtomicInteger();

    @Override
    public String name() {
      return "endless";
    }

    @Override
    public Recipe recipe() {
      return Recipe.of("endless");
    }

    @Override
    public Fidelity fidelity() {
      return Fidelity.F0;
    }

    @Override
    public CostProfile costProfile() {
      return CostProfile.perToken(1);
    }

    @Override
    public int maxConcurrentServes() {
      return 1;
    }

    @Override
    public int maxWaitingServes() {
      return 0;
    }

    @Override
    public boolean streams() {
      return true;
    }

    @Override
    public EngineResult serve(ServeRequest request, TokenSequence prompt) {
      return new EngineResult(TokenSequence.of('x'), ServeOutcome.greedy(prompt.size(), 1));
    }

    @Override
    public EngineResult serve(ServeRequest request, TokenSequence prompt, TokenSink sink) {
      running.incrementAndGet();
      try {
        long n = 0;
        while (n < request.maxTokens() && sink.accept('x')) {
          n++;
        }
        return new EngineResult(
            TokenSequence.of(new int[(int) n]), ServeOutcome.greedy(prompt.size(), n));
      } finally {
        running.decrementAndGet();
      }
    }
  }

  @Test
  void defaults_upstreamSixtyFourInFlight_noneWaiting() {
    UpstreamEngine upstream =
        UpstreamEngine.builder()
            .name("u")
            .baseUri(URI.create("http://127.0.0.1:9/v1"))
            .model("m")
            .build();
    assertThat(upstream.maxConcurrentServes()).isEqualTo(64);
    assertThat(upstream.maxWaitingServes()).isZero();
    assertThat(
            UpstreamEngine.builder()
                .name("u")
                .baseUri(URI.create("http://127.0.0.1:9/v1"))
                .model("m")
                .maxConcurrentServes(3)
                .build()
                .maxConcurrentServes())
        .isEqualTo(3);
    assertThatThrownBy(() -> UpstreamEngine.builder().maxConcurrentServes(0))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void eightClients_onAnIoBoundBackend_areNotRefusedOnTwoCores() throws Exception {
    // The regression: the server-wide bound defaulted to max(2, cores) and refused most of them.
    HeldEngine held = new HeldEngine(64, 8);
    try (Fixture f = new Fixture(SigningKey.generate(), b -> b.backend(held), b -> {})) {
      List<CompletableFuture<HttpResponse<String>>> all = new ArrayList<>();
      for (int i = 0; i < 8; i++) {
        all.add(f.http.sendAsync(post(f, "client " + i), HttpResponse.BodyHandlers.ofString()));
      }
      assertThat(held.entered.await(20, TimeUnit.SECONDS))
          .as("all eight are served at once")
          .isTrue();
      held.release.countDown();
      for (CompletableFuture<HttpResponse<String>> r : all) {
        assertThat(r.get(20, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
      }
    }
  }

  /** A reference engine whose serves wait for {@code release}; its bounds are the engine's own. */
  private static final class HeldReference implements ServingEngine {
    final ReferenceEngine engine;
    final CountDownLatch entered = new CountDownLatch(1);
    final CountDownLatch release = new CountDownLatch(1);

    HeldReference(ReferenceEngine engine) {
      this.engine = engine;
    }

    @Override
    public String name() {
      return engine.name();
    }

    @Override
    public Recipe recipe() {
      return engine.recipe();
    }

    @Override
    public Fidelity fidelity() {
      return engine.fidelity();
    }

    @Override
    public CostProfile costProfile() {
      return engine.costProfile();
    }

    @Override
    public int maxConcurrentServes() {
      return engine.maxConcurrentServes();
    }

    @Override
    public int maxWaitingServes() {
      return engine.maxWaitingServes();
    }

    @Override
    public EngineResult serve(ServeRequest request, TokenSequence prompt)
        throws org.meshjava.core.EngineException {
      entered.countDown();
      try {
        release.await(20, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return engine.serve(request, prompt);
    }
  }

  @Test
  void localCpuEngine_beyondItsConcurrencyLimit_is429WithRetryAfter() throws Exception {
    HeldReference local =
        new HeldReference(
            ReferenceEngine.builder()
                .name("local")
                // The cheapest backend, so that "auto" routes to it (as HeldEngine).
                .fidelity(Fidelity.F0)
                .costProfile(CostProfile.perToken(1))
                .concurrency(new ServeConcurrency(1, 0))
                .build());
    assertThat(ReferenceEngine.builder().build().maxConcurrentServes())
        .as("one serve per core by default")
        .isEqualTo(Math.max(2, Runtime.getRuntime().availableProcessors()));
    try (Fixture f = new Fixture(SigningKey.generate(), b -> b.backend(local), b -> {})) {
      CompletableFuture<HttpResponse<String>> first =
          f.http.sendAsync(post(f, "first"), HttpResponse.BodyHandlers.ofString());
      assertThat(local.entered.await(20, TimeUnit.SECONDS)).isTrue();
      busySecond(f);
      local.release.countDown();
      assertThat(first.get(20, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
    }
  }

  @Test
  void overload_whenTheRoutedBackendIsFull_is429WithRetryAfter() throws Exception {
    HeldEngine held = new HeldEngine(1, 1);
    try (Fixture f = new Fixture(SigningKey.generate(), b -> b.backend(held), b -> {})) {
      CompletableFuture<HttpResponse<String>> first =
          f.http.sendAsync(post(f, "first"), HttpResponse.BodyHandlers.ofString());
      assertThat(held.entered.await(20, TimeUnit.SECONDS)).isTrue();
      HttpResponse<String> second = busySecond(f);
      assertThat(second.body()).contains("held");
      held.release.countDown();
      assertThat(first.get(20, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
      assertThat(f.post("/v1/chat/completions", Fixture.chat("third")).status()).isEqualTo(200);
    }
  }

  @Test
  void writeTimeout_notShorterThanIdleTimeout_isRefused() {
    try (Fixture f = new Fixture()) {
      OpenAiServer.Builder b =
          OpenAiServer.builder(f.steward)
              .idleTimeout(Duration.ofSeconds(5))
              .writeTimeout(Duration.ofSeconds(5));
      assertThatThrownBy(b::build)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("writeTimeout");
    }
  }

  @Test
  void stalledStreamReader_givesItsServeBackAfterTheWriteTimeout() throws Exception {
    EndlessEngine endless = new EndlessEngine();
    try (Fixture f =
        new Fixture(
            SigningKey.generate(),
            b -> b.backend(endless),
            b -> b.idleTimeout(Duration.ofSeconds(300)).writeTimeout(Duration.ofMillis(500)))) {
      String body =
          "{\"model\":\"auto\",\"stream\":true,\"max_tokens\":500000,"
              + "\"messages\":[{\"role\":\"user\",\"content\":\"go\"}]}";
      byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
      try (Socket stalled = new Socket()) {
        stalled.setReceiveBufferSize(4096);
        stalled.connect(new java.net.InetSocketAddress("127.0.0.1", f.server.port()));
        OutputStream out = stalled.getOutputStream();
        out.write(Fixture.chatPostHead(bytes.length));
        out.write(bytes);
        out.flush();
        InputStream in = stalled.getInputStream();
        assertThat(new String(in.readNBytes(12), StandardCharsets.US_ASCII))
            .as("the stream has begun")
            .isEqualTo("HTTP/1.1 200");
        // Now read nothing more. The endless engine holds the backend's only slot until the
        // steward gives up on this reader; well before the 300 s idle timeout, it must. Filling
        // the socket buffers takes a few seconds on a quiet machine and several times that on a
        // loaded CI runner, so the wait is generous: only the idle timeout would exceed it.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        int status;
        do {
          Thread.sleep(100);
          HttpResponse<String> r =
              f.http.send(post(f, "next"), HttpResponse.BodyHandlers.ofString());
          status = r.statusCode();
        } while (status == 429 && System.nanoTime() < deadline);
        assertThat(status)
            .as("a second client is served while the first still stalls")
            .isEqualTo(200);
        assertThat(endless.running.get()).isZero();
      }
    }
  }

  /** Sends a second request while the backend is full; it is refused 429 with Retry-After. */
  private static HttpResponse<String> busySecond(Fixture f) throws Exception {
    HttpResponse<String> second =
        f.http.send(post(f, "second"), HttpResponse.BodyHandlers.ofString());
    new Fixture.Answer(
            second.statusCode(),
            second.headers().firstValue("content-type").orElse(""),
            second.body())
        .error(429, "backend_busy");
    assertThat(second.headers().firstValue("retry-after")).hasValue("1");
    return second;
  }

  private static HttpRequest post(Fixture f, String prompt) {
    return HttpRequest.newBuilder(f.uri("/v1/chat/completions"))
        .header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(Fixture.chat(prompt).toString()))
        .build();
  }
}
