package org.meshjava.openai;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link PlainReply} reads a whole reply without a tree, and only a reply it takes as plainly
 * right: whatever it reads must be what the tree reading ({@link UpstreamEngine}'s, with a plain
 * {@code ObjectMapper}: the last of a duplicate key wins) reads from the same body, and anything
 * else is left to the tree (null).
 */
class PlainReplyTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private static final String USAGE = "\"usage\":{\"prompt_tokens\":9,\"completion_tokens\":4}";

  /** Replies read here: each must read as the tree reads it. */
  static Stream<String> plain() {
    return Stream.of(
        "{\"id\":\"x\",\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":"
            + "\"Hello!\"},\"finish_reason\":\"stop\"}],"
            + USAGE
            + "}",
        "{" + USAGE + ",\"choices\":[{\"message\":{\"content\":\"a\\u00e9\\ud83d\\ude00\\n\"}}]}",
        // Empty tool calls and refusals, which servers send with every reply (vLLM's []).
        " {\"choices\" : [ {\"message\":{\"content\":\"\",\"tool_calls\":[ ],\"function_call\":{},"
            + "\"refusal\":\"\"}} ] , "
            + USAGE
            + " } ",
        "{\"choices\":[{\"index\":null,\"message\":{\"content\":\"x\"},\"finish_reason\":\"length\"}],"
            + USAGE
            + "}",
        "{\"choices\":[{\"message\":{\"content\":\"x\"}}],\"usage\":{\"prompt_tokens\":0,"
            + "\"completion_tokens\":4294967295,\"total_tokens\":4294967295,\"x\":{\"y\":[]}}}",
        "{\"system_fingerprint\":null,\"choices\":[{\"logprobs\":null,\"message\":{\"content\":"
            + "\"x\",\"refusal\":null}}],"
            + USAGE
            + ",\"service_tier\":\"default\"}",
        // An error that is null is no error (Foundry Local sends one in every reply).
        "{\"error\":null,\"choices\":[{\"message\":{\"content\":\"x\"}}]," + USAGE + "}");
  }

  /**
   * Replies left to the tree: a duplicate it reads, a part missing or of another type, text after
   * the reply, an error beside it, a second choice or another index, not JSON.
   */
  static Stream<String> leftToTheTree() {
    return Stream.of(
        "",
        // One choice is asked for: a second, or an index other than 0, the tree refuses.
        " {\"choices\" : [ {\"message\":{\"content\":\"\",\"tool_calls\":[{\"a\":[1,{}]}]}},"
            + " {\"message\":{\"content\":\"second\"}}, 7 ] , "
            + USAGE
            + " } ",
        "{\"choices\":[{\"index\":1,\"message\":{\"content\":\"x\"}}]," + USAGE + "}",
        "{\"choices\":[{\"index\":\"0\",\"message\":{\"content\":\"x\"}}]," + USAGE + "}",
        // A tool call, function call or refusal, beside text or not, the tree refuses.
        " {\"choices\" : [ {\"message\":{\"content\":\"\",\"tool_calls\":[{\"a\":[1,{}]}]}} ] , "
            + USAGE
            + " } ",
        "{\"choices\":[{\"message\":{\"content\":\"x\",\"function_call\":{\"name\":\"f\"}}}],"
            + USAGE
            + "}",
        "{\"choices\":[{\"message\":{\"refusal\":\"no\",\"content\":\"x\"}}]," + USAGE + "}",
        // A finish reason this server does not pass on, the tree refuses.
        "{\"choices\":[{\"message\":{\"content\":\"x\"},\"finish_reason\":\"content_filter\"}],"
            + USAGE
            + "}",
        "[]",
        "not json",
        "{\"choices\":[{\"message\":{\"content\":\"x\"}}]," + USAGE,
        "{\"choices\":[{\"message\":{\"content\":\"x\"}}]," + USAGE + ",\"z\":[}",
        // Text after the reply: a second reading of it, which the engine's tree refuses.
        "{\"choices\":[{\"message\":{\"content\":\"x\"}}]," + USAGE + "} trailing",
        "{\"choices\":[{\"message\":{\"content\":\"x\"}}]," + USAGE + "}{}",
        // An error beside the reply's parts, which the engine's tree fails.
        "{\"error\":{\"message\":\"m\"},\"choices\":[{\"message\":{\"content\":\"x\"}}],"
            + USAGE
            + "}",
        "{\"choices\":[{\"message\":{\"content\":\"x\"}}]," + USAGE + ",\"error\":\"m\"}",
        "{\"choices\":[{\"message\":{\"content\":\"a\",\"content\":\"b\"}}]," + USAGE + "}",
        "{\"choices\":[{\"message\":{\"content\":\"a\"},\"message\":{\"content\":\"b\"}}],"
            + USAGE
            + "}",
        "{\"choices\":[],\"choices\":[{\"message\":{\"content\":\"b\"}}]," + USAGE + "}",
        "{\"choices\":[{\"message\":{\"content\":\"a\"}}]," + USAGE + "," + USAGE + "}",
        "{\"choices\":[{\"message\":{\"content\":\"a\"}}],\"usage\":{\"prompt_tokens\":1,"
            + "\"prompt_tokens\":2,\"completion_tokens\":3}}",
        "{\"choices\":[{\"message\":{\"content\":null}}]," + USAGE + "}",
        "{\"choices\":[{\"message\":{\"content\":7}}]," + USAGE + "}",
        "{\"choices\":[{\"message\":{}}]," + USAGE + "}",
        "{\"choices\":[\"x\"]," + USAGE + "}",
        "{\"choices\":{\"0\":{\"message\":{\"content\":\"x\"}}}," + USAGE + "}",
        "{\"choices\":[{\"message\":{\"content\":\"x\"}}]}",
        "{\"choices\":[{\"message\":{\"content\":\"x\"}}],\"usage\":null}",
        "{\"choices\":[{\"message\":{\"content\":\"x\"}}],\"usage\":{\"prompt_tokens\":9}}",
        "{\"choices\":[{\"message\":{\"content\":\"x\"}}],\"usage\":{\"prompt_tokens\":9.0,"
            + "\"completion_tokens\":4}}",
        "{\"choices\":[{\"message\":{\"content\":\"x\"}}],\"usage\":{\"prompt_tokens\":-1,"
            + "\"completion_tokens\":4}}",
        "{\"choices\":[{\"message\":{\"content\":\"x\"}}],\"usage\":{\"prompt_tokens\":9,"
            + "\"completion_tokens\":4294967296}}",
        "{\"choices\":[{\"message\":{\"content\":\"x\"}}],\"usage\":{\"prompt_tokens\":9,"
            + "\"completion_tokens\":99999999999999999999999}}",
        "{\"choices\":[{\"message\":{\"content\":\"x\"}}],\"usage\":{\"prompt_tokens\":\"9\","
            + "\"completion_tokens\":4}}");
  }

  @ParameterizedTest
  @MethodSource("plain")
  void aPlainReply_readsAsTheTreeReadsIt(String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    PlainReply.Fields read = PlainReply.read(JSON.getFactory(), bytes);
    JsonNode tree = JSON.readTree(bytes);
    assertThat(read).isNotNull();
    assertThat(read.content())
        .isEqualTo(tree.path("choices").path(0).path("message").path("content").textValue());
    assertThat(read.promptTokens()).isEqualTo(tree.path("usage").path("prompt_tokens").asLong());
    assertThat(read.completionTokens())
        .isEqualTo(tree.path("usage").path("completion_tokens").asLong());
  }

  @ParameterizedTest
  @MethodSource("leftToTheTree")
  void anyOtherReply_isLeftToTheTree(String body) {
    assertThat(PlainReply.read(JSON.getFactory(), body.getBytes(StandardCharsets.UTF_8))).isNull();
  }
}
