package org.meshjava.openai;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.meshjava.core.EngineException;

/**
 * The fast reader of whole replies ({@link PlainReply}) and the tree decide every reply alike: for
 * each of a fixed set of generated replies (the fields of a message, a choice and a usage report
 * combined, tool calls and refusals among them), the engine's answer equals its answer to the same
 * reply with {@code "error": false} before its first key, which the fast reader leaves to the tree
 * and the tree reads as no error. Served, the text and the counts agree; failed, the words.
 */
class PlainReplyDifferentialTest {
  private static final String[] CONTENT = {
    "\"content\":\"abc\"", "\"content\":\"\"", "\"content\":null",
  };
  private static final String[] BESIDE = {
    "",
    "\"tool_calls\":null",
    "\"tool_calls\":[]",
    "\"tool_calls\":{}",
    "\"tool_calls\":\"\"",
    "\"tool_calls\":[{}]",
    "\"tool_calls\":[null]",
    "\"tool_calls\":0",
    "\"tool_calls\":false",
    "\"refusal\":null",
    "\"refusal\":\"\"",
    "\"refusal\":\" \"",
    "\"refusal\":\"no\"",
    "\"refusal\":[]",
    "\"function_call\":null",
    "\"function_call\":{}",
    "\"function_call\":{\"name\":\"f\"}",
    "\"function_call\":[]",
    "\"audio\":null,\"annotations\":[]",
    "\"tool_calls\":[],\"refusal\":null,\"function_call\":null",
  };
  private static final String[] CHOICE = {
    "",
    "\"index\":0",
    "\"index\":null",
    "\"index\":1",
    "\"index\":0.0",
    "\"finish_reason\":\"stop\"",
    "\"finish_reason\":null",
    "\"finish_reason\":\"length\"",
    "\"finish_reason\":\"tool_calls\"",
    "\"finish_reason\":\"error\"",
    "\"finish_reason\":\"eos\"",
    "\"finish_reason\":7",
    "\"logprobs\":null",
  };
  private static final String[] USAGE = {
    ",\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":2}",
    ",\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":0}",
    ",\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":9}",
    ",\"usage\":{\"prompt_tokens\":4294967296,\"completion_tokens\":2}",
    ",\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":2.0}",
    ",\"usage\":{\"prompt_tokens\":3}",
    ",\"usage\":null",
    "",
  };

  @Test
  void theFastReaderAndTheTree_decideEveryReplyAlike() throws Exception {
    AtomicReference<String> answer = new AtomicReference<>();
    JsonFactory strict =
        JsonFactory.builder().enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION).build();
    int fast = 0;
    try (ScriptedUpstream up = new ScriptedUpstream(answering(answer))) {
      UpstreamEngine engine = Fixture.remote(up.base());
      ScriptedUpstream.Asked asked = ScriptedUpstream.Asked.chat("Differential.", 8);
      for (String reply : replies()) {
        if (PlainReply.read(strict, reply.getBytes(StandardCharsets.UTF_8)) != null) {
          fast++;
        }
        answer.set(reply);
        String read = outcome(engine, asked);
        answer.set("{\"error\":false," + reply.substring(1));
        assertThat(read).as(reply).isEqualTo(outcome(engine, asked));
      }
    }
    // The fast reader took a share of them, so both readers were compared.
    assertThat(fast).isGreaterThan(10);
  }

  /**
   * Every content with every field beside it, with a choice's field and a usage report drawn; and
   * the text with every field beside it in a plain choice with a plain usage report.
   */
  private static List<String> replies() {
    SplittableRandom random = new SplittableRandom(34);
    List<String> out = new ArrayList<>();
    for (String content : CONTENT) {
      for (String beside : BESIDE) {
        String message =
            "{\"role\":\"assistant\""
                + (content.isEmpty() ? "" : "," + content)
                + (beside.isEmpty() ? "" : "," + beside)
                + "}";
        // With text, once as a plain reply would have it, so that the message decides.
        if (content.equals(CONTENT[0])) {
          out.add(reply("\"index\":0,\"finish_reason\":\"stop\"", message, USAGE[0]));
        }
        out.add(
            reply(
                CHOICE[random.nextInt(CHOICE.length)],
                message,
                USAGE[random.nextInt(USAGE.length)]));
      }
    }
    return out;
  }

  private static String reply(String choice, String message, String usage) {
    return "{\"id\":\"x\",\"choices\":[{"
        + (choice.isEmpty() ? "" : choice + ",")
        + "\"message\":"
        + message
        + "}]"
        + usage
        + "}";
  }

  private static String outcome(UpstreamEngine engine, ScriptedUpstream.Asked asked) {
    try {
      var r = engine.serve(asked.request(), asked.payload());
      return "served "
          + UpstreamEventFieldsTest.text(r)
          + " "
          + r.outcome().tokensIn()
          + " "
          + r.outcome().tokensOut();
    } catch (EngineException e) {
      return "failed " + e.getMessage();
    }
  }

  private static ScriptedUpstream.Script answering(AtomicReference<String> answer) {
    return new ScriptedUpstream.Script() {
      @Override
      public void stream(JsonNode body, OutputStream out) {
        throw new UnsupportedOperationException("whole replies only");
      }

      @Override
      public String whole(JsonNode body) {
        return answer.get();
      }
    };
  }
}
