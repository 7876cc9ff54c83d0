package org.meshjava.openai;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.meshjava.core.EngineResult;
import org.meshjava.core.TokenAccounting;
import org.meshjava.core.TokenSequence;
import org.meshjava.core.TokenSink;
import org.meshjava.core.crypto.SigningKey;

/**
 * Each content delta an upstream streams reaches a client of this host as one delta, with the same
 * text in the same order: it once arrived as one event per character ("Hello world" as 11 events),
 * because the engine handed the reply's code points over one at a time. What is committed (§6.4) is
 * still the reply's code points, as for the same reply asked for whole.
 */
class UpstreamStreamPiecesTest {
  /**
   * The upstream's content deltas: several code points each, a surrogate pair, characters of two
   * and three UTF-8 bytes, a delta ending in a replacement character, and empty deltas, which carry
   * nothing and are not relayed.
   */
  private static final List<String> DELTAS =
      List.of("", "Hello world", "", "\uD83D\uDE00 ok", "你好", "odd \uFFFD", " end.");

  private static final List<String> RELAYED = DELTAS.stream().filter(d -> !d.isEmpty()).toList();

  private static final String TEXT = String.join("", DELTAS);

  /** The upstream's own count of the reply's tokens. */
  private static final long COMPLETION_TOKENS = 9;

  /** A chunk of the upstream's stream carrying {@code content}, and a finish reason if not null. */
  private static String chunk(String content, String finish) throws Exception {
    return "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":"
        + Fixture.JSON.writeValueAsString(content)
        + "},\"finish_reason\":"
        + (finish == null ? "null" : "\"" + finish + "\"")
        + "}],\"usage\":null}\n\n";
  }

  /**
   * The upstream's whole stream: a first chunk naming the role, a chunk per delta with the last one
   * also carrying the finish reason, the usage report and {@code [DONE]}.
   */
  private static String wholeStream() throws Exception {
    StringBuilder s =
        new StringBuilder(
            "data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"},"
                + "\"finish_reason\":null}],\"usage\":null}\n\n");
    for (int i = 0; i < DELTAS.size(); i++) {
      s.append(chunk(DELTAS.get(i), i == DELTAS.size() - 1 ? "stop" : null));
    }
    return s.append("data: {\"choices\":[],\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":")
        .append(COMPLETION_TOKENS)
        .append(",\"total_tokens\":")
        .append(5 + COMPLETION_TOKENS)
        .append("}}\n\ndata: [DONE]\n\n")
        .toString();
  }

  /** A fake OpenAI-compatible upstream streaming {@code stream}, or answering TEXT whole. */
  private static ScriptedUpstream upstream(String stream) throws Exception {
    return upstream(stream, TEXT);
  }

  /** A fake OpenAI-compatible upstream streaming {@code stream}, or answering {@code whole}. */
  private static ScriptedUpstream upstream(String stream, String whole) throws Exception {
    return new ScriptedUpstream(
        new ScriptedUpstream.Script() {
          @Override
          public void stream(JsonNode body, OutputStream out) throws Exception {
            out.write(stream.getBytes(StandardCharsets.UTF_8));
          }

          @Override
          public String whole(JsonNode body) throws Exception {
            return ScriptedUpstream.reply(
                whole,
                "stop",
                "{\"prompt_tokens\":5,\"completion_tokens\":" + COMPLETION_TOKENS + "}");
          }
        });
  }

  private static Fixture front(ScriptedUpstream up) {
    UpstreamEngine engine = Fixture.remote(up.base());
    return new Fixture(SigningKey.generate(), b -> b.backend(engine), b -> {});
  }

  /** The content of each chat chunk that carries some, in order. */
  private static List<String> chatPieces(Fixture.Answer a) throws Exception {
    List<String> pieces = new ArrayList<>();
    for (String d : a.data()) {
      if (!d.equals("[DONE]")) {
        String content =
            Fixture.JSON.readTree(d).path("choices").path(0).path("delta").path("content").asText();
        if (!content.isEmpty()) {
          pieces.add(content);
        }
      }
    }
    return pieces;
  }

  /**
   * An upstream event that is not JSON failed the stream with the parser exception's {@code
   * toString()} as the error event's message ({@code com.fasterxml.jackson.core.JsonParseException:
   * Unexpected character ...}): a Java class name handed to the client. The message now says what
   * the upstream sent, in words.
   */
  @Test
  void aDeltaThatIsNotJson_failsTheStream_withAMessageNamingNoJavaClass() throws Exception {
    String broken = chunk("Hello", null) + "data: {broken\n\n";
    try (ScriptedUpstream up = upstream(broken);
        Fixture f = front(up)) {
      ObjectNode body = Fixture.chat("Stream me.");
      body.put("max_tokens", 16).put("stream", true);
      Fixture.Answer chat = f.post("/v1/chat/completions", body);
      JsonNode error = Fixture.JSON.readTree(chat.data().get(chat.data().size() - 1)).get("error");
      assertThat(error.get("code").asText()).isEqualTo("engine_failed");
      assertThat(error.get("message").asText())
          .contains("sent a stream event that is not JSON")
          .doesNotContain("Exception")
          .doesNotContain("com.fasterxml");

      ObjectNode asked = Fixture.JSON.createObjectNode();
      asked.put("input", "Stream me.").put("max_output_tokens", 16).put("stream", true);
      Fixture.Answer responses = f.post("/v1/responses", asked);
      JsonNode event = Fixture.JSON.readTree(responses.data().get(responses.data().size() - 1));
      assertThat(event.get("type").asText()).isEqualTo("error");
      assertThat(event.get("message").asText()).contains("not JSON").doesNotContain("Exception");
    }
  }

  @Test
  void chatStream_relaysEachUpstreamDelta_asOneChunk() throws Exception {
    try (ScriptedUpstream up = upstream(wholeStream());
        Fixture f = front(up)) {
      ObjectNode body = Fixture.chat("Stream me.");
      body.put("max_tokens", 16).put("stream", true);
      Fixture.Answer a = f.post("/v1/chat/completions", body);

      assertThat(a.status()).as(a.body()).isEqualTo(200);
      assertThat(chatPieces(a)).containsExactlyElementsOf(RELAYED);
      JsonNode energy = Fixture.JSON.readTree(a.data().get(a.data().size() - 2)).get("energy");
      assertThat(Fixture.verifiedReceipt(energy).counters().tokensOut())
          .isEqualTo(COMPLETION_TOKENS);
    }
  }

  @Test
  void responsesStream_relaysEachUpstreamDelta_asOneTextDelta() throws Exception {
    try (ScriptedUpstream up = upstream(wholeStream());
        Fixture f = front(up)) {
      ObjectNode body = Fixture.JSON.createObjectNode();
      body.put("input", "Stream me.").put("max_output_tokens", 16).put("stream", true);
      Fixture.Answer a = f.post("/v1/responses", body);

      assertThat(a.status()).as(a.body()).isEqualTo(200);
      List<String> pieces = new ArrayList<>();
      String text = "";
      for (String d : a.data()) {
        JsonNode e = Fixture.JSON.readTree(d);
        switch (e.get("type").asText()) {
          case "response.output_text.delta" -> pieces.add(e.get("delta").asText());
          case "response.output_text.done" -> text = e.get("text").asText();
          default -> {}
        }
      }
      assertThat(pieces).containsExactlyElementsOf(RELAYED);
      assertThat(text).isEqualTo(TEXT);
    }
  }

  @Test
  void upstreamFailingMidStream_relaysTheDeltasBeforeItWhole_thenAnError() throws Exception {
    String broken = chunk("Hello world", null) + chunk("\uD83D\uDE00 ok", null) + "data: {oops\n\n";
    try (ScriptedUpstream up = upstream(broken);
        Fixture f = front(up)) {
      ObjectNode body = Fixture.chat("Stream me.");
      body.put("max_tokens", 16).put("stream", true);
      Fixture.Answer a = f.post("/v1/chat/completions", body);

      assertThat(chatPieces(a)).containsExactly("Hello world", "\uD83D\uDE00 ok");
      assertThat(a.data().getLast()).contains("engine_failed").doesNotContain("\"energy\"");
      assertThat(f.steward.head().nextSequence()).isZero();
    }
  }

  /** What an engine hands its sink: each run, as text, and any token handed on its own. */
  static final class Recorded implements TokenSink {
    final List<String> runs = new ArrayList<>();
    final List<Integer> alone = new ArrayList<>();

    @Override
    public boolean accept(int token) {
      alone.add(token);
      return true;
    }

    @Override
    public boolean acceptRun(TokenSequence run) {
      StringBuilder text = new StringBuilder();
      for (int i = 0; i < run.size(); i++) {
        text.appendCodePoint((int) run.get(i));
      }
      runs.add(text.toString());
      return true;
    }
  }

  @Test
  void engine_handsEachDeltaOverAsOneRun_andCommitsTheCodePointsAWholeReplyCommits()
      throws Exception {
    try (ScriptedUpstream up = upstream(wholeStream())) {
      UpstreamEngine engine = Fixture.remote(up.base());
      ScriptedUpstream.Asked asked = ScriptedUpstream.Asked.chat("Stream me.", 16);
      Recorded sink = new Recorded();

      EngineResult streamed = engine.serve(asked.request(), asked.payload(), sink);
      EngineResult whole = engine.serve(asked.request(), asked.payload());

      assertThat(sink.runs).containsExactlyElementsOf(RELAYED);
      assertThat(sink.alone).isEmpty();
      assertThat(streamed.tokens()).isEqualTo(TokenSequence.of(TEXT.codePoints().toArray()));
      assertThat(streamed.tokens()).isEqualTo(whole.tokens());
      assertThat(streamed.accounting()).isEqualTo(TokenAccounting.REMOTE_USAGE);
      assertThat(streamed.outcome().tokensOut()).isEqualTo(COMPLETION_TOKENS);
    }
  }

  @Test
  void upstreamSplittingASurrogatePairAcrossDeltas_isCommittedAsTheWholeReplyIs() throws Exception {
    // A JSON string may escape half of a pair on its own. Read delta by delta, the halves became
    // two ids where the same reply whole has one code point: the committed output depended on
    // where the upstream cut its stream.
    String split =
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\\ud83d\"}}]}\n\n"
            + "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"\\ude00 b\"}}]}\n\n"
            + "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"\\ud83d\"}}]}\n\n"
            + "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":3}}\n\n"
            + "data: [DONE]\n\n";
    String text = "a\uD83D\uDE00 b\uD83D";
    try (ScriptedUpstream up = upstream(split, text)) {
      UpstreamEngine engine = Fixture.remote(up.base());
      ScriptedUpstream.Asked asked = ScriptedUpstream.Asked.chat("Stream me.", 16);
      Recorded sink = new Recorded();

      EngineResult streamed = engine.serve(asked.request(), asked.payload(), sink);
      EngineResult whole = engine.serve(asked.request(), asked.payload());

      assertThat(whole.tokens()).isEqualTo(TokenSequence.of(text.codePoints().toArray()));
      assertThat(streamed.tokens()).isEqualTo(whole.tokens());
      // Each half waits for the delta that completes it; the one never completed comes last.
      assertThat(sink.runs).containsExactly("a", "\uD83D\uDE00 b", "\uD83D");
    }
  }
}
