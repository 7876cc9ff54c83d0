package org.meshjava.openai;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.OutputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.meshjava.core.ContentId;
import org.meshjava.core.DecisionShape;
import org.meshjava.core.EngineException;
import org.meshjava.core.EngineResult;
import org.meshjava.core.Fidelity;
import org.meshjava.core.ServeBounds;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.TokenAccounting;
import org.meshjava.core.TokenSequence;

/**
 * What {@link UpstreamEngine} sends an OpenAI-compatible upstream and how it reads the answer, at
 * the engine itself (no steward): the forwarded body and bearer token, the events of a stream it
 * skips or stops at, the usage counts it accepts at their ends, and the failures it names.
 */
class UpstreamWireTest {

  /** A script answering every request with {@code events} streamed and {@code whole} whole. */
  static ScriptedUpstream.Script answering(int status, String whole, String... events) {
    return new ScriptedUpstream.Script() {
      @Override
      public void stream(JsonNode body, OutputStream out) throws Exception {
        for (String e : events) {
          out.write(e.getBytes(StandardCharsets.UTF_8));
        }
      }

      @Override
      public String whole(JsonNode body) {
        return whole;
      }

      @Override
      public int status() {
        return status;
      }
    };
  }

  private static String usage(long in, long out) {
    return "{\"prompt_tokens\":" + in + ",\"completion_tokens\":" + out + "}";
  }

  private static String delta(String content) {
    return "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\""
        + content
        + "\"}}],\"usage\":null}\n\n";
  }

  private static String usageEvent(long in, long out) {
    return "data: {\"choices\":[],\"usage\":" + usage(in, out) + "}\n\n";
  }

  private static UpstreamEngine.Builder engine(URI base) {
    return UpstreamEngine.builder()
        .name("remote")
        .baseUri(base)
        .model("upstream-model")
        .fidelity(Fidelity.F0)
        .costProfile(org.meshjava.core.CostProfile.perToken(1));
  }

  private static ScriptedUpstream.Asked asked(int maxTokens) throws Exception {
    return ScriptedUpstream.Asked.chat("Count me.", maxTokens);
  }

  private static EngineResult whole(UpstreamEngine e, ScriptedUpstream.Asked a)
      throws EngineException {
    return e.serve(a.request(), a.payload());
  }

  private static EngineResult streamed(UpstreamEngine e, ScriptedUpstream.Asked a)
      throws EngineException {
    return e.serve(a.request(), a.payload(), token -> true);
  }

  /** An upstream answering "Hi." in 2 of its tokens, whole or streamed. */
  private static ScriptedUpstream sayingHi() throws Exception {
    return new ScriptedUpstream(
        answering(
            200,
            ScriptedUpstream.reply("Hi.", "stop", usage(5, 2)),
            delta("Hi."),
            usageEvent(5, 2)));
  }

  /** Asks {@code e} for 8 tokens whole, then streamed. */
  private static void askedBothWays(UpstreamEngine e) throws Exception {
    whole(e, asked(8));
    streamed(e, asked(8));
  }

  @Test
  void forwardedBody_namesTheModel_theMessages_andMaxTokens_andAStreamAsksForUsage()
      throws Exception {
    try (ScriptedUpstream up = sayingHi()) {
      askedBothWays(engine(up.base()).build());

      JsonNode plain = up.forwarded.get(0).body();
      assertThat(plain.get("model").asText()).isEqualTo("upstream-model");
      assertThat(plain.get("messages")).hasSize(1);
      assertThat(plain.get("messages").get(0).get("role").asText()).isEqualTo("user");
      assertThat(plain.get("messages").get(0).get("content").asText()).isEqualTo("Count me.");
      assertThat(plain.get("max_tokens").asLong()).isEqualTo(8);
      assertThat(plain.get("stream").asBoolean()).isFalse();
      assertThat(plain.has("stream_options")).isFalse();
      assertThat(plain.has("temperature")).as("no determinism claimed").isFalse();
      assertThat(plain.has("seed")).isFalse();
      assertThat(up.forwarded.get(0).authorization()).isNull();

      JsonNode stream = up.forwarded.get(1).body();
      assertThat(stream.get("stream").asBoolean()).isTrue();
      assertThat(stream.get("stream_options").get("include_usage").asBoolean()).isTrue();
      assertThat(stream.get("messages")).isEqualTo(plain.get("messages"));
    }
  }

  @Test
  void deterministicEngine_asksForTemperatureZeroAndAFixedSeed_andSendsItsBearerToken()
      throws Exception {
    try (ScriptedUpstream up = sayingHi()) {
      askedBothWays(engine(up.base()).deterministic(true).apiKey("sk-test").build());
      for (ScriptedUpstream.Forwarded f : up.forwarded) {
        assertThat(f.body().get("temperature").asInt()).isZero();
        assertThat(f.body().get("seed").asInt()).isZero();
        assertThat(f.authorization()).isEqualTo("Bearer sk-test");
      }
      assertThat(up.forwarded).hasSize(2);
    }
  }

  @Test
  void endpoint_isChatCompletionsUnderTheBase_withOrWithoutItsTrailingSlash() {
    URI expected = URI.create("http://127.0.0.1:9/v1/chat/completions");
    assertThat(engine(URI.create("http://127.0.0.1:9/v1")).build().endpoint()).isEqualTo(expected);
    assertThat(engine(URI.create("http://127.0.0.1:9/v1/")).build().endpoint()).isEqualTo(expected);
  }

  @Test
  void wholeReply_isCommittedAsCodePoints_andCountedAsTheUpstreamCountsIt() throws Exception {
    String text = "h\uD83D\uDE00!";
    try (ScriptedUpstream up =
        new ScriptedUpstream(answering(200, ScriptedUpstream.reply(text, "stop", usage(6, 3))))) {
      EngineResult r = whole(engine(up.base()).build(), asked(8));
      assertThat(r.tokens().size()).isEqualTo(3);
      assertThat(r.tokens().get(1)).isEqualTo(0x1F600);
      assertThat(r.outcome().tokensIn()).isEqualTo(6);
      assertThat(r.outcome().tokensOut()).isEqualTo(3);
      assertThat(r.accounting()).isEqualTo(TokenAccounting.REMOTE_USAGE);
    }
  }

  @Test
  void usageCounts_areAcceptedUpToTheirEnds_andRefusedPastThem() throws Exception {
    long u32 = 0xFFFF_FFFFL;
    try (ScriptedUpstream zero =
        new ScriptedUpstream(answering(200, ScriptedUpstream.reply("", "stop", usage(0, 0))))) {
      EngineResult r = whole(engine(zero.base()).build(), asked(8));
      assertThat(r.outcome().tokensIn()).isZero();
      assertThat(r.outcome().tokensOut()).isZero();
    }
    try (ScriptedUpstream atEnds =
        new ScriptedUpstream(
            answering(200, ScriptedUpstream.reply("ab", "length", usage(u32, 8))))) {
      EngineResult r = whole(engine(atEnds.base()).build(), asked(8));
      assertThat(r.outcome().tokensIn()).isEqualTo(u32);
      assertThat(r.outcome().tokensOut()).isEqualTo(8);
    }
    for (String bad :
        List.of(
            usage(u32 + 1, 2),
            "{\"prompt_tokens\":1.5,\"completion_tokens\":2}",
            "{\"prompt_tokens\":\"5\",\"completion_tokens\":2}",
            "{\"prompt_tokens\":5}",
            "{\"prompt_tokens\":5,\"completion_tokens\":-1}")) {
      try (ScriptedUpstream up =
          new ScriptedUpstream(answering(200, ScriptedUpstream.reply("ab", "stop", bad)))) {
        assertThatThrownBy(() -> whole(engine(up.base()).build(), asked(8)))
            .as(bad)
            .isInstanceOf(EngineException.class)
            .hasMessageContaining("not a u32 count");
      }
    }
  }

  @Test
  void wholeReply_withoutContentOrNotJson_failsNamingWhatIsWrong() throws Exception {
    try (ScriptedUpstream up =
        new ScriptedUpstream(answering(200, "{\"choices\":[],\"usage\":" + usage(1, 1) + "}"))) {
      assertThatThrownBy(() -> whole(engine(up.base()).build(), asked(8)))
          .isInstanceOf(EngineException.class)
          .hasMessageContaining("sent no choices[0].message.content");
    }
    try (ScriptedUpstream up =
        new ScriptedUpstream(answering(200, ScriptedUpstream.reply("ab", "stop", null)))) {
      assertThatThrownBy(() -> whole(engine(up.base()).build(), asked(8)))
          .isInstanceOf(EngineException.class)
          .hasMessageContaining("sent no usage report");
    }
    try (ScriptedUpstream up = new ScriptedUpstream(answering(200, "not json at all"))) {
      assertThatThrownBy(() -> whole(engine(up.base()).build(), asked(8)))
          .isInstanceOf(EngineException.class)
          .hasMessageContaining("sent a body that is not JSON");
    }
  }

  @Test
  void refusingUpstream_isReportedWithItsStatus_andItsBodyOnOneLineCutAt200Characters()
      throws Exception {
    String body = "first\n  second " + "x".repeat(300);
    try (ScriptedUpstream up = new ScriptedUpstream(answering(503, body, "busy\n", "retry\n"))) {
      UpstreamEngine e = engine(up.base()).build();
      assertThatThrownBy(() -> whole(e, asked(8)))
          .isInstanceOf(EngineException.class)
          .hasMessage(
              "the upstream answered HTTP 503: "
                  + ("first second " + "x".repeat(300)).substring(0, 200)
                  + "…");
      assertThatThrownBy(() -> streamed(e, asked(8)))
          .isInstanceOf(EngineException.class)
          .hasMessage("the upstream answered HTTP 503: busy retry");
    }
    try (ScriptedUpstream up = new ScriptedUpstream(answering(404, "x".repeat(200)))) {
      assertThatThrownBy(() -> whole(engine(up.base()).build(), asked(8)))
          .hasMessage("the upstream answered HTTP 404: " + "x".repeat(200));
    }
  }

  @Test
  void refusingUpstream_isReportedWithTheFirstTwentyLinesOfItsStream() throws Exception {
    String[] lines = new String[30];
    for (int i = 0; i < lines.length; i++) {
      lines[i] = "l" + i + "\n";
    }
    try (ScriptedUpstream up = new ScriptedUpstream(answering(500, "", lines))) {
      StringBuilder first20 = new StringBuilder();
      for (int i = 0; i < 20; i++) {
        first20.append(i == 0 ? "" : " ").append("l").append(i);
      }
      assertThatThrownBy(() -> streamed(engine(up.base()).build(), asked(8)))
          .hasMessage("the upstream answered HTTP 500: " + first20);
    }
  }

  @Test
  void stream_skipsCommentsEventNamesAndEmptyDeltas_andStopsReadingAtDone() throws Exception {
    try (ScriptedUpstream up =
        new ScriptedUpstream(
            answering(
                200,
                "",
                ": keep-alive\n\n",
                "event: chunk\n",
                delta(""),
                "data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\"}}]}\n\n",
                delta("Hi"),
                delta(""),
                delta("!"),
                usageEvent(5, 2),
                "data: [DONE]\n\n",
                "data: this is not json and is never read\n\n"))) {
      UpstreamStreamPiecesTest.Recorded runs = new UpstreamStreamPiecesTest.Recorded();
      // max_tokens 2: the two non-empty deltas fit; the empty ones are not counted.
      EngineResult r =
          engine(up.base()).build().serve(asked(2).request(), asked(2).payload(), runs);
      assertThat(runs.runs).containsExactly("Hi", "!");
      assertThat(runs.alone).isEmpty();
      assertThat(r.outcome().tokensOut()).isEqualTo(2);
      assertThat(r.accounting()).isEqualTo(TokenAccounting.REMOTE_USAGE);
    }
  }

  @Test
  void stream_ofMoreDeltasThanMaxTokens_fails() throws Exception {
    try (ScriptedUpstream up =
        new ScriptedUpstream(
            answering(200, "", delta("a"), delta("b"), delta("c"), usageEvent(5, 2)))) {
      assertThatThrownBy(() -> streamed(engine(up.base()).build(), asked(2)))
          .isInstanceOf(EngineException.class)
          .hasMessage("the upstream streamed more content deltas than the request's max_tokens 2");
    }
  }

  @Test
  void stream_endingOnHalfASurrogatePair_handsThatHalfOverAtTheEnd() throws Exception {
    try (ScriptedUpstream up =
        new ScriptedUpstream(answering(200, "", delta("a\\uD83D"), usageEvent(5, 1)))) {
      UpstreamStreamPiecesTest.Recorded pieces = new UpstreamStreamPiecesTest.Recorded();
      EngineResult r =
          engine(up.base()).build().serve(asked(8).request(), asked(8).payload(), pieces);
      assertThat(pieces.runs)
          .as("'a', then the lone half once the stream ended")
          .containsExactly("a", "\uD83D");
      assertThat(r.tokens().size()).isEqualTo(2);
      assertThat(r.tokens().get(1)).isEqualTo(0xD83D);
    }
  }

  @Test
  void decisionRequest_orAPayloadThatIsNotPromptText_failsBeforeAnythingIsForwarded()
      throws Exception {
    try (ScriptedUpstream up = new ScriptedUpstream(answering(200, ""))) {
      UpstreamEngine e = engine(up.base()).build();
      ServeRequest decision =
          ServeRequest.decision(
              ContentId.ofBytes(new byte[] {1}),
              4,
              new ServeBounds(0, Fidelity.F0, 1_000_000),
              new DecisionShape(1, 2, 1));
      assertThatThrownBy(() -> e.serve(decision, TokenSequence.of(1, 2, 3, 4)))
          .isInstanceOf(EngineException.class)
          .hasMessage("an upstream serves generations, not typed decisions");
      assertThatThrownBy(() -> e.serve(decision, TokenSequence.of(1, 2, 3, 4), t -> true))
          .hasMessage("an upstream serves generations, not typed decisions");

      ServeRequest generation = asked(8).request();
      assertThatThrownBy(() -> e.serve(generation, TokenSequence.of('u', 's', 'e', 'r', 0x100)))
          .isInstanceOf(EngineException.class)
          .hasMessageContaining("was handed a payload that is not prompt text")
          .hasMessageContaining("token 4 is 256, not a byte");
      assertThatThrownBy(() -> e.serve(generation, TokenSequence.of('n', 'o', 'p', 'e')))
          .isInstanceOf(EngineException.class)
          .hasMessageContaining("was handed a payload that is not prompt text");
      assertThat(up.forwarded).isEmpty();
    }
  }

  @Test
  void unreachableUpstream_failsNamingTheBackend_butNotWhereItIs() {
    // The message is the client's 502 engine_failed answer, on a listener that may face the
    // network: the upstream's address is the operator's (it goes to the server's log).
    // Port 9 (discard) on loopback: nothing listens there in the test environment. A name under
    // .invalid never resolves (RFC 6761 §6.4), and the name is the address too.
    for (String base :
        List.of(
            "http://127.0.0.1:9/v1",
            "https://127.0.0.1:9/v1",
            "http://vllm-internal.invalid:8000/v1",
            "https://vllm-internal.invalid:8000/v1")) {
      UpstreamEngine e = engine(URI.create(base)).timeout(Duration.ofSeconds(5)).build();
      for (boolean stream : new boolean[] {false, true}) {
        assertThatThrownBy(
                () -> {
                  if (stream) {
                    streamed(e, asked(8));
                  } else {
                    whole(e, asked(8));
                  }
                })
            .as(base + (stream ? " streamed" : " whole"))
            .isInstanceOf(EngineException.class)
            .hasMessageStartingWith("calling the upstream: ")
            .hasMessageNotContaining("127.0.0.1")
            .hasMessageNotContaining("vllm-internal")
            .hasMessageNotContaining(":9");
      }
    }
  }

  /**
   * Regression: each failed exchange logged a WARN line, so an upstream that is down flooded the
   * server's log at the rate requests came. Twenty failures in a row log one line, which names the
   * upstream and where it is once.
   */
  @Test
  void anUnreachableUpstream_isLoggedOnce_notOncePerRequest() {
    UpstreamEngine e = engine(URI.create("http://127.0.0.1:9/v1")).build();
    String log =
        Fixture.stderrOf(
            () -> {
              for (int i = 0; i < 20; i++) {
                assertThatThrownBy(() -> whole(e, asked(8))).isInstanceOf(EngineException.class);
              }
            });
    assertThat(log.lines().filter(l -> l.contains("upstream remote")))
        .singleElement()
        .asString()
        .contains("WARN", "upstream remote at http://127.0.0.1:9/v1/chat/completions failed: ")
        .doesNotContain("upstream remote failed");
  }

  @Test
  void baseUri_withUserinfoQueryOrFragment_isRefused_withoutEchoingIt() {
    // Neither is sent as credentials, and each would be written wherever the endpoint is named.
    for (String base :
        List.of(
            "http://user:s3cret@127.0.0.1:9/v1",
            "https://127.0.0.1:9/v1?api-key=s3cret",
            "https://127.0.0.1:9/v1#s3cret")) {
      assertThatThrownBy(() -> engine(URI.create(base)))
          .as(base)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("api_key_env")
          .hasMessageNotContaining("s3cret");
    }
  }

  @Test
  void aCallerAlreadyInterrupted_failsTheStreamAtOnce_andKeepsItsInterrupt() throws Exception {
    UpstreamEngine e = engine(URI.create("http://127.0.0.1:9/v1")).build();
    ScriptedUpstream.Asked a = asked(8);
    Thread.currentThread().interrupt();
    try {
      assertThatThrownBy(() -> streamed(e, a))
          .isInstanceOf(EngineException.class)
          .hasMessage("interrupted waiting for the upstream");
      assertThat(Thread.currentThread().isInterrupted()).isTrue();
    } finally {
      Thread.interrupted();
    }
  }

  @Test
  void streamBound_growsWithMaxTokens_onTopOfAWholeRepliesCap() {
    ServeRequest one =
        ServeRequest.generation(
            ContentId.ofBytes(new byte[] {1}), 1, new ServeBounds(1, Fidelity.F0, 1_000_000));
    ServeRequest most =
        ServeRequest.generation(
            ContentId.ofBytes(new byte[] {1}),
            1,
            new ServeBounds(0xFFFF_FFFFL, Fidelity.F0, 1_000_000));
    assertThat(UpstreamEngine.streamBound(one))
        .isEqualTo(UpstreamEngine.STREAM_BYTES_PER_TOKEN + UpstreamHttp.MAX_REPLY_BYTES);
    assertThat(UpstreamEngine.streamBound(most))
        .isEqualTo(
            0xFFFF_FFFFL * UpstreamEngine.STREAM_BYTES_PER_TOKEN + UpstreamHttp.MAX_REPLY_BYTES);
  }

  @Test
  void tokenizer_decodesEachIdAsItsCodePoint_andAnIdThatIsNoneAsTheReplacementCharacter() {
    UpstreamEngine e = engine(URI.create("http://127.0.0.1:9/v1")).build();
    assertThat(e.tokenizer().name()).isEqualTo("bytes-in/code-points-out");
    assertThat(e.tokenizer().encode("hé".getBytes(StandardCharsets.UTF_8)))
        .isEqualTo(TokenSequence.of('h', 0xC3, 0xA9));
    TokenSequence out = TokenSequence.of('h', 0x1F600, 0x10FFFF, 0x110000, -1);
    assertThat(e.tokenizer().decode(out))
        .isEqualTo("h\uD83D\uDE00" + Character.toString(0x10FFFF) + "\uFFFD\uFFFD");
    assertThat(e.tokenizer().piece(0, 0x1F600)).contains("\uD83D\uDE00");
    assertThat(e.tokenizer().piece(0, 0x110000)).contains("\uFFFD");
    assertThat(e.tokenizer().piece(0, 0xFFFF_FFFFL)).contains("\uFFFD");
    // An id past 32 bits whose low bits are a code point is still none.
    assertThat(e.tokenizer().piece(0, 0x1_0000_0041L)).contains("\uFFFD");
  }

  @Test
  void engine_declaresWhatItIs_andItsBuilderRefusesWhatCannotWork() {
    URI base = URI.create("http://127.0.0.1:9/v1");
    UpstreamEngine e = engine(base).build();
    assertThat(e.maxConcurrentServes()).isEqualTo(UpstreamEngine.DEFAULT_MAX_CONCURRENT_SERVES);
    assertThat(engine(base).maxConcurrentServes(3).build().maxConcurrentServes()).isEqualTo(3);
    assertThat(e.maxWaitingServes()).isZero();
    assertThat(e.streams()).isTrue();
    assertThat(e.tokenAccounting()).isEqualTo(TokenAccounting.REMOTE_USAGE);
    assertThat(e.toString()).contains("remote", "upstream-model", base + "/chat/completions");

    assertThatThrownBy(() -> engine(base).maxConcurrentServes(0))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> engine(URI.create("ftp://127.0.0.1/v1")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("must be http or https");
    assertThatThrownBy(() -> engine(base).timeout(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> engine(base).timeout(Duration.ofSeconds(-1)))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> UpstreamEngine.builder().name("x").model("m").build())
        .isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> UpstreamEngine.builder().name("x").baseUri(base).build())
        .isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> UpstreamEngine.builder().baseUri(base).model("m").build())
        .isInstanceOf(IllegalStateException.class);
  }
}
