package org.meshjava.openai;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.OutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.meshjava.core.EngineException;
import org.meshjava.core.EngineResult;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.TokenAccounting;
import org.meshjava.core.TokenSequence;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.receipt.MeshReceipt;

/**
 * An upstream serve is counted as the upstream counts it (issue 21 item 3): a fake upstream whose
 * reply is 23 characters but, by its own count, 7 tokens, sent in 3 stream deltas; and upstreams
 * that break the request (a count over {@code max_tokens}) or report no usage.
 */
class UpstreamAccountingTest {
  private static final String TEXT = "Hello, wonderful world!";
  private static final List<String> DELTAS = List.of("Hello,", " wonderful", " world!");

  /** How the fake upstream answers. */
  private record Script(long completionTokens, boolean reportsUsage, boolean holdsAfterFirst) {
    static Script honest(long completionTokens) {
      return new Script(completionTokens, true, false);
    }
  }

  /** A fake OpenAI-compatible upstream answering TEXT, counted as its script says. */
  private static final class FakeUpstream implements ScriptedUpstream.Script, AutoCloseable {
    final Script script;
    final ScriptedUpstream server;

    /** Released by a test once it has seen the first delta through the mesh. */
    final CountDownLatch firstSeen = new CountDownLatch(1);

    final AtomicBoolean releasedBeforeRest = new AtomicBoolean();

    FakeUpstream(Script script) throws Exception {
      this.script = script;
      this.server = new ScriptedUpstream(this);
    }

    private String usage() {
      long out = script.completionTokens();
      return script.reportsUsage()
          ? "{\"prompt_tokens\":5,\"completion_tokens\":"
              + out
              + ",\"total_tokens\":"
              + (5 + out)
              + "}"
          : "null";
    }

    private String finish(JsonNode body) {
      return script.completionTokens() >= body.get("max_tokens").asLong() ? "length" : "stop";
    }

    @Override
    public void stream(JsonNode body, OutputStream os) throws Exception {
      for (int i = 0; i < DELTAS.size(); i++) {
        String event =
            "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":"
                + Fixture.JSON.writeValueAsString(DELTAS.get(i))
                + "}}],\"usage\":null}\n\n";
        os.write(event.getBytes(StandardCharsets.UTF_8));
        os.flush();
        if (i == 0 && script.holdsAfterFirst()) {
          releasedBeforeRest.set(firstSeen.await(20, TimeUnit.SECONDS));
        }
      }
      String tail =
          "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\""
              + finish(body)
              + "\"}],\"usage\":null}\n\n"
              + (script.reportsUsage()
                  ? "data: {\"choices\":[],\"usage\":" + usage() + "}\n\n"
                  : "")
              + "data: [DONE]\n\n";
      os.write(tail.getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public String whole(JsonNode body) throws Exception {
      return ScriptedUpstream.reply(TEXT, finish(body), script.reportsUsage() ? usage() : null);
    }

    URI base() {
      return server.base();
    }

    @Override
    public void close() throws Exception {
      firstSeen.countDown();
      server.close();
    }
  }

  private static UpstreamEngine engine(FakeUpstream up) {
    return Fixture.remote(up.base());
  }

  private static Fixture front(FakeUpstream up) {
    UpstreamEngine engine = engine(up);
    return new Fixture(SigningKey.generate(), b -> b.backend(engine), b -> {});
  }

  private static ObjectNode ask(int maxTokens, boolean stream) {
    ObjectNode body = Fixture.chat("Count me.");
    body.put("max_tokens", maxTokens);
    body.put("stream", stream);
    if (stream) {
      // The token counts of a stream come in its usage chunk, which a client asks for.
      body.putObject("stream_options").put("include_usage", true);
    }
    return body;
  }

  /** The streamed reply's text, finish reason and usage. */
  private record Streamed(String text, String finish, JsonNode usage) {
    static Streamed of(Fixture.Answer a) throws Exception {
      assertThat(a.status()).as(a.body()).isEqualTo(200);
      StringBuilder text = new StringBuilder();
      JsonNode usage = Fixture.JSON.nullNode();
      String finish = "";
      for (String d : a.data()) {
        if (d.equals("[DONE]")) {
          continue;
        }
        JsonNode chunk = Fixture.JSON.readTree(d);
        text.append(chunk.path("choices").path(0).path("delta").path("content").asText(""));
        if (chunk.path("choices").path(0).hasNonNull("finish_reason")) {
          finish = chunk.path("choices").path(0).get("finish_reason").asText();
        }
        if (chunk.hasNonNull("usage")) {
          usage = chunk.get("usage");
        }
      }
      return new Streamed(text.toString(), finish, usage);
    }
  }

  @Test
  void whole_countsTheUpstreamsTokens_notCharacters_andNeverCuts() throws Exception {
    try (FakeUpstream up = new FakeUpstream(Script.honest(7));
        Fixture f = front(up)) {
      JsonNode r = f.post("/v1/chat/completions", ask(8, false)).json();
      assertThat(r.at("/choices/0/message/content").asText()).isEqualTo(TEXT);
      assertThat(r.at("/choices/0/finish_reason").asText()).isEqualTo("stop");
      assertThat(r.at("/usage/completion_tokens").asLong()).isEqualTo(7);
      assertThat(r.at("/usage/prompt_tokens").asLong()).isEqualTo(5);
      MeshReceipt receipt = Fixture.verifiedReceipt(r.at("/usage/energy"));
      assertThat(receipt.counters().tokensOut()).isEqualTo(7);
      assertThat(receipt.counters().tokensIn()).isEqualTo(5);
      assertThat(receipt.counters().tokensAccepted()).isEqualTo(7);
      // The estimate follows the upstream's counts: 1 µJ per token, 5 in and 7 out.
      assertThat(r.at("/usage/energy/receipt/estimated_uj").asLong()).isEqualTo(12);
      assertThat(r.at("/usage/energy/token_accounting").asText()).isEqualTo("REMOTE_USAGE");
      JsonNode remote = Fixture.JSON.nullNode();
      for (JsonNode m : f.get("/v1/models").json().get("data")) {
        if (m.get("id").asText().equals("remote")) {
          remote = m;
        }
      }
      assertThat(remote.at("/mesh/token_accounting").asText()).isEqualTo("REMOTE_USAGE");
    }
  }

  @Test
  void whole_atTheLimitAsTheUpstreamCountsIt_isLength_andStillWhole() throws Exception {
    try (FakeUpstream up = new FakeUpstream(Script.honest(7));
        Fixture f = front(up)) {
      JsonNode r = f.post("/v1/chat/completions", ask(7, false)).json();
      assertThat(r.at("/choices/0/message/content").asText()).isEqualTo(TEXT);
      assertThat(r.at("/choices/0/finish_reason").asText()).isEqualTo("length");
      assertThat(r.at("/usage/completion_tokens").asLong()).isEqualTo(7);
    }
  }

  @Test
  void streamed_countsTheUpstreamsUsage_notDeltasOrCharacters() throws Exception {
    try (FakeUpstream up = new FakeUpstream(Script.honest(7));
        Fixture f = front(up)) {
      Streamed s = Streamed.of(f.post("/v1/chat/completions", ask(8, true)));
      assertThat(s.text()).isEqualTo(TEXT);
      assertThat(s.finish()).isEqualTo("stop");
      assertThat(s.usage().get("completion_tokens").asLong()).isEqualTo(7);
      assertThat(s.usage().get("prompt_tokens").asLong()).isEqualTo(5);
      assertThat(Fixture.verifiedReceipt(s.usage().get("energy")).counters().tokensOut())
          .isEqualTo(7);
      Streamed atLimit = Streamed.of(f.post("/v1/chat/completions", ask(7, true)));
      assertThat(atLimit.text()).isEqualTo(TEXT);
      assertThat(atLimit.finish()).isEqualTo("length");
    }
  }

  @Test
  void streamed_firstDeltaReachesTheClient_beforeTheUpstreamHasFinished() throws Exception {
    try (FakeUpstream up = new FakeUpstream(new Script(7, true, true));
        Fixture f = front(up)) {
      HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
      HttpRequest req =
          HttpRequest.newBuilder(f.uri("/v1/chat/completions"))
              .timeout(Duration.ofSeconds(60))
              .header("Content-Type", "application/json")
              .POST(HttpRequest.BodyPublishers.ofString(ask(8, true).toString()))
              .build();
      HttpResponse<java.util.stream.Stream<String>> resp =
          http.send(req, HttpResponse.BodyHandlers.ofLines());
      assertThat(resp.statusCode()).isEqualTo(200);
      StringBuilder text = new StringBuilder();
      try (java.util.stream.Stream<String> lines = resp.body()) {
        Iterator<String> it = lines.iterator();
        while (it.hasNext()) {
          String line = it.next();
          if (!line.startsWith("data: ") || line.equals("data: [DONE]")) {
            continue;
          }
          JsonNode chunk = Fixture.JSON.readTree(line.substring(6));
          text.append(chunk.path("choices").path(0).path("delta").path("content").asText(""));
          if (text.toString().equals(DELTAS.get(0))) {
            // The upstream is still holding the rest of its reply back.
            up.firstSeen.countDown();
          }
        }
      }
      assertThat(up.releasedBeforeRest.get())
          .as("the first delta was relayed while the upstream still held the rest")
          .isTrue();
      assertThat(text.toString()).isEqualTo(TEXT);
    }
  }

  /** Both ways of asking fail with 502 engine_failed, and nothing is sealed. */
  private static void assertFailsWholeAndStreamed(Script script) throws Exception {
    try (FakeUpstream up = new FakeUpstream(script);
        Fixture f = front(up)) {
      f.post("/v1/chat/completions", ask(8, false)).error(502, "engine_failed");
      Fixture.Answer streamed = f.post("/v1/chat/completions", ask(8, true));
      assertThat(streamed.body()).contains("engine_failed").doesNotContain("\"energy\"");
      assertThat(f.steward.head().nextSequence()).isZero();
    }
  }

  @Test
  void upstreamCountingOverTheLimit_failsTheServe_ratherThanSealingIt() throws Exception {
    assertFailsWholeAndStreamed(Script.honest(9));
  }

  @Test
  void upstreamWithoutUsage_failsTheServe_ratherThanCountingCharacters() throws Exception {
    assertFailsWholeAndStreamed(new Script(7, false, false));
  }

  @Test
  void streamStoppedByTheCaller_beforeTheUsageReport_isCountedByDeltas_andSaysSo()
      throws Exception {
    try (FakeUpstream up = new FakeUpstream(Script.honest(7))) {
      UpstreamEngine engine = engine(up);
      ScriptedUpstream.Asked asked = ScriptedUpstream.Asked.chat("Count me.", 8);
      ServeRequest request = asked.request();
      TokenSequence payload = asked.payload();
      int[] seen = {0};
      EngineResult stopped = engine.serve(request, payload, token -> ++seen[0] < 3);
      assertThat(stopped.accounting()).isEqualTo(TokenAccounting.REMOTE_STREAM_DELTAS);
      // Asked to stop within the first delta, the engine still holds that delta whole ("Hello,"):
      // it arrived whole and counts as one delta.
      assertThat(stopped.tokens().size()).isEqualTo(DELTAS.get(0).length());
      assertThat(stopped.outcome().tokensOut()).isEqualTo(1);
      assertThat(stopped.outcome().tokensIn()).isEqualTo(payload.size());
      EngineResult whole = engine.serve(request, payload, token -> true);
      assertThat(whole.accounting()).isEqualTo(TokenAccounting.REMOTE_USAGE);
      assertThat(whole.outcome().tokensOut()).isEqualTo(7);
      assertThat(whole.tokens().size()).isEqualTo(TEXT.length());
    }
  }

  @Test
  void upstreamWithANegativeCount_failsTheServe() throws Exception {
    try (FakeUpstream up = new FakeUpstream(Script.honest(-1))) {
      ScriptedUpstream.Asked asked = ScriptedUpstream.Asked.chat("Count me.", 8);
      assertThatThrownBy(() -> engine(up).serve(asked.request(), asked.payload()))
          .isInstanceOf(EngineException.class)
          .hasMessageContaining("not a u32 count");
    }
  }
}
