package org.meshjava.openai;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;
import org.meshjava.core.EngineException;
import org.meshjava.core.EngineResult;

/**
 * Replies of odd shapes from an upstream, whole and streamed: each is either served with the
 * upstream's own counts or fails the serve in words that say why. Two readings of one reply (a key
 * given twice, where a JSON reader keeps one of them, or JSON text after the reply's object) were
 * served as the last key or the first object said; they are not one reply, so they fail. Text the
 * upstream counts as no tokens at all was served with a receipt of none; it fails too.
 */
class UpstreamReplyShapesTest {
  private static final String USAGE = "{\"prompt_tokens\":3,\"completion_tokens\":2}";

  private static final String CHOICE =
      "{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":\"hello\"},"
          + "\"finish_reason\":\"stop\"}";

  private static final String DELTA =
      "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"ab\"}}]}\n\n";

  private static final String USAGE_EVENT = "data: {\"choices\":[],\"usage\":" + USAGE + "}\n\n";

  @Test
  void aWholeReplyGivingAKeyTwice_fails() throws Exception {
    String[] twice = {
      "{\"choices\":["
          + CHOICE
          + "],\"choices\":["
          + CHOICE.replace("hello", "other")
          + "],"
          + "\"usage\":"
          + USAGE
          + "}",
      "{\"choices\":["
          + CHOICE
          + "],\"usage\":"
          + USAGE
          + ",\"usage\":{\"prompt_tokens\":1,\"completion_tokens\":1}}",
      "{\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":\"a\","
          + "\"content\":\"bbbb\"},\"finish_reason\":\"stop\"}],\"usage\":"
          + USAGE
          + "}",
      "{\"choices\":["
          + CHOICE
          + "],\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":2,"
          + "\"completion_tokens\":1}}",
      "{\"id\":\"a\",\"id\":\"b\",\"choices\":[" + CHOICE + "],\"usage\":" + USAGE + "}",
    };
    for (String reply : twice) {
      assertThatThrownBy(() -> whole(reply))
          .as(reply)
          .isInstanceOf(EngineException.class)
          .hasMessageStartingWith("the upstream sent a body that is not JSON");
    }
  }

  @Test
  void aWholeReplyWithTextAfterItsObject_fails() throws Exception {
    String reply = ScriptedUpstream.reply("ok", "stop", USAGE);
    for (String after : new String[] {"xx", reply, "{}", "]"}) {
      assertThatThrownBy(() -> whole(reply + after))
          .as(after)
          .isInstanceOf(EngineException.class)
          .hasMessageStartingWith("the upstream sent a body that is not JSON");
    }
    // Whitespace after it is JSON's own.
    assertThat(whole(reply + " \r\n\t").outcome().tokensOut()).isEqualTo(2);
  }

  @Test
  void aStreamedEventGivingAKeyTwice_orWithTextAfterIt_fails() throws Exception {
    String[] events = {
      "data: {\"choices\":[],\"usage\":" + USAGE + ",\"usage\":" + USAGE + "}\n\n",
      "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"ab\",\"content\":\"cd\"}}]}\n\n",
      "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"ab\"}}]} xx\n\n",
    };
    for (String event : events) {
      assertThatThrownBy(() -> streamed(DELTA + event + USAGE_EVENT + "data: [DONE]\n\n"))
          .as(event)
          .isInstanceOf(EngineException.class)
          .hasMessageStartingWith("the upstream sent a stream event that is not JSON");
    }
  }

  @Test
  void textCountedAsNoTokens_failsWholeAndStreamed() throws Exception {
    String none = "{\"prompt_tokens\":3,\"completion_tokens\":0}";
    assertThatThrownBy(() -> whole(ScriptedUpstream.reply("hello world", "stop", none)))
        .isInstanceOf(EngineException.class)
        .hasMessageContaining("counted 0 completion tokens for a reply with text");
    assertThatThrownBy(() -> streamed(DELTA + "data: {\"choices\":[],\"usage\":" + none + "}\n\n"))
        .isInstanceOf(EngineException.class)
        .hasMessageContaining("counted 0 completion tokens for a reply with text");
    // No text and no tokens is an empty reply, served as one.
    assertThat(whole(ScriptedUpstream.reply("", "stop", none)).tokens().size()).isZero();
    assertThat(streamed("data: {\"choices\":[],\"usage\":" + none + "}\n\n").tokens().size())
        .isZero();
  }

  @Test
  void anOddFinishReasonOrRole_isServedWithTheUpstreamsCounts() throws Exception {
    String[] choices = {
      "{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":\"hello\"}}",
      "{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":\"hello\"},"
          + "\"finish_reason\":null}",
      "{\"index\":0,\"message\":{\"content\":\"hello\"},\"finish_reason\":\"stop\"}",
    };
    for (String choice : choices) {
      EngineResult r = whole("{\"choices\":[" + choice + "],\"usage\":" + USAGE + "}");
      assertThat(r.tokens().size()).as(choice).isEqualTo(5);
      assertThat(r.outcome().tokensIn()).isEqualTo(3);
      assertThat(r.outcome().tokensOut()).isEqualTo(2);
    }
  }

  @Test
  void noChoicesOrNoTextContent_fails() throws Exception {
    // A tool call in place of the content is named: UpstreamNoTextTest.
    String[] replies = {
      "{\"choices\":[],\"usage\":" + USAGE + "}",
    };
    for (String reply : replies) {
      assertThatThrownBy(() -> whole(reply))
          .as(reply)
          .isInstanceOf(EngineException.class)
          .hasMessage("the upstream sent no choices[0].message.content");
    }
  }

  @Test
  void aChatOverAnUpstreamGivingAKeyTwice_isAnswered502() throws Exception {
    String twice =
        "{\"choices\":["
            + CHOICE
            + "],\"usage\":"
            + USAGE
            + ",\"usage\":{\"prompt_tokens\":1,\"completion_tokens\":1}}";
    try (ScriptedUpstream up = new ScriptedUpstream(UpstreamWireTest.answering(200, twice))) {
      assertThat(engineFailed(up.base())).contains("not JSON");
    }
  }

  /**
   * The message of the 502 {@code engine_failed} answering a chat served by an upstream engine at
   * {@code base}, through the HTTP binding.
   */
  static String engineFailed(java.net.URI base) {
    try (Fixture f = new Fixture(null, b -> b.backend(Fixture.remote(base)), b -> {})) {
      ObjectNode body = Fixture.chat("Through the binding.");
      body.put("model", "remote");
      return f.post("/v1/chat/completions", body)
          .error(502, "engine_failed")
          .get("message")
          .asText();
    }
  }

  private static EngineResult whole(String reply) throws Exception {
    try (ScriptedUpstream up = new ScriptedUpstream(UpstreamWireTest.answering(200, reply))) {
      ScriptedUpstream.Asked asked = ScriptedUpstream.Asked.chat("Shapes.", 8);
      return Fixture.remote(up.base()).serve(asked.request(), asked.payload());
    }
  }

  private static EngineResult streamed(String events) throws Exception {
    try (ScriptedUpstream up = new ScriptedUpstream(UpstreamWireTest.answering(200, "", events))) {
      ScriptedUpstream.Asked asked = ScriptedUpstream.Asked.chat("Shapes.", 8);
      return Fixture.remote(up.base()).serve(asked.request(), asked.payload(), t -> true);
    }
  }
}
