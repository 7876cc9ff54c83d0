package org.meshjava.openai;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.OutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.meshjava.core.CostProfile;
import org.meshjava.core.Fidelity;
import org.meshjava.core.Recipe;
import org.meshjava.engine.ReferenceEngine;
import org.meshjava.steward.Steward;
import org.meshjava.steward.observe.ServeObserver;
import org.meshjava.steward.observe.ServeStarted;
import org.meshjava.steward.observe.StewardListener;

/**
 * Which thread runs a serve: a virtual thread of its own when every backend only waits on an
 * upstream (no hand-off between pooled threads), a pooled platform thread when a backend computes
 * here (a virtual thread is never preempted, so such serves would hold back every other request).
 * Concurrent serves on virtual threads are each answered once, each with its own receipt.
 */
@Timeout(120)
class VirtualServeThreadTest {
  /** An upstream answering every request whole. */
  private static final ScriptedUpstream.Script ANSWERS =
      new ScriptedUpstream.Script() {
        @Override
        public void stream(JsonNode body, OutputStream out) {
          throw new UnsupportedOperationException("only whole replies here");
        }

        @Override
        public String whole(JsonNode body) throws Exception {
          return ScriptedUpstream.reply(
              "fine", "stop", "{\"prompt_tokens\":3,\"completion_tokens\":1,\"total_tokens\":4}");
        }
      };

  /** Records whether each serve started on a virtual thread. */
  private static final class Threads implements StewardListener {
    final ConcurrentLinkedQueue<Boolean> virtual = new ConcurrentLinkedQueue<>();

    @Override
    public ServeObserver serveStarted(ServeStarted serve) {
      virtual.add(Thread.currentThread().isVirtual());
      return ServeObserver.NONE;
    }
  }

  private static Steward steward(
      ScriptedUpstream up, Threads threads, Consumer<Steward.Builder> more) {
    Steward.Builder b =
        Steward.ephemeral()
            .meter(new org.meshjava.energy.EstimatorMeter())
            .backend(Fixture.remote(up.base()))
            .listener(threads);
    more.accept(b);
    return b.build();
  }

  private static final HttpClient HTTP = HttpClient.newHttpClient();

  /** A chat completion asked of {@code server}. */
  private static Fixture.Answer chat(OpenAiServer server) throws Exception {
    HttpResponse<String> r =
        HTTP.send(
            HttpRequest.newBuilder(URI.create(server.baseUri() + "/chat/completions"))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(Fixture.chat("hello").toString()))
                .build(),
            HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
    return new Fixture.Answer(
        r.statusCode(), r.headers().firstValue("content-type").orElse(""), r.body());
  }

  @Test
  void upstreamOnly_servesOnVirtualThreads_eachAnsweredOnceWithItsOwnReceipt() throws Exception {
    Threads threads = new Threads();
    try (ScriptedUpstream up = new ScriptedUpstream(ANSWERS);
        Steward steward = steward(up, threads, b -> {});
        OpenAiServer server = OpenAiServer.builder(steward).build().start()) {
      assertThat(OpenAiServer.onlyWaits(steward)).isTrue();
      int n = 48;
      List<Future<Fixture.Answer>> answers;
      try (ExecutorService pool = Executors.newFixedThreadPool(16)) {
        answers = pool.invokeAll(java.util.Collections.nCopies(n, () -> chat(server)));
      }
      Set<Long> sequences = new HashSet<>();
      for (Future<Fixture.Answer> a : answers) {
        Fixture.Answer answer = a.get();
        assertThat(answer.status()).as(answer.body()).isEqualTo(200);
        sequences.add(Fixture.verifiedReceipt(answer.json().at("/usage/energy")).sequence());
      }
      assertThat(sequences).hasSize(n);
      assertThat(threads.virtual).hasSize(n).containsOnly(true);
    }
  }

  @Test
  void aBackendComputingHere_keepsServesOnPlatformThreads() throws Exception {
    Threads threads = new Threads();
    try (ScriptedUpstream up = new ScriptedUpstream(ANSWERS);
        Steward steward =
            steward(
                up,
                threads,
                b ->
                    b.backend(
                        ReferenceEngine.builder()
                            .name("local")
                            .recipe(Recipe.of("local-ref"))
                            .fidelity(Fidelity.F4)
                            .costProfile(CostProfile.perToken(900))
                            .workPerToken(1)
                            .build()));
        OpenAiServer server = OpenAiServer.builder(steward).build().start()) {
      assertThat(OpenAiServer.onlyWaits(steward)).isFalse();
      Fixture.Answer answer = chat(server);
      assertThat(answer.status()).as(answer.body()).isEqualTo(200);
      assertThat(threads.virtual).containsExactly(false);
    }
  }
}
