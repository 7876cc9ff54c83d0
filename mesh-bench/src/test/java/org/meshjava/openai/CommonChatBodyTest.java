package org.meshjava.openai;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.meshjava.core.Fidelity;
import org.meshjava.core.PromptText;
import org.meshjava.core.ServeBounds;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.jcp.GrantChain;
import org.meshjava.jcp.Jcp;
import org.meshjava.jcp.Presentation;

/**
 * The streaming candidate ({@link CommonChatBody}) against the binding's own read, so that {@code
 * RequestReadBenchmark} compares two reads of the same meaning: every body it reads gives the
 * binding's request, prompt text, stream settings and presentation, and every body it is not sure
 * of is declined, to be read (and refused, if so) as a tree.
 */
class CommonChatBodyTest {
  private static final long DEFAULT_CEILING = 777_000;
  private static final GrantedServeRequest.Endpoint CHAT =
      GrantedServeRequest.Endpoint.CHAT_COMPLETIONS;

  /** Bodies of the common shape: the streaming read takes them. */
  private static final String[] READ = {
    "{\"model\":\"auto\",\"messages\":[{\"role\":\"user\",\"content\":\"Say hello.\"}],"
        + "\"max_tokens\":16}",
    "{\"model\":\"m-1\",\"messages\":[{\"role\":\"system\",\"content\":\"Be brief.\"},"
        + "{\"content\":\"h\u00e9llo \\ud83d\\ude00 \\\"q\\\" \\n\\u0000\\t\",\"role\":\"user\"}],"
        + "\"max_completion_tokens\":32,\"metadata\":{\"joule_ceiling_uj\":\"1000000\","
        + "\"fidelity_floor\":\"F2\",\"prompt_tokens\":\"7\",\"trace\":\"x\",\"note\":{\"a\":[1,{}]}}}",
    "{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}],\"metadata\":{\"joule_ceiling_uj\":5000,"
        + "\"fidelity_floor\":3,\"prompt_tokens\":0}}",
    "{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}],\"metadata\":{\"fidelity_floor\":\"4\","
        + "\"joule_ceiling_uj\":\"9223372036854775\"}}",
    "{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}],\"stream\":true,"
        + "\"stream_options\":{\"include_usage\":true}}",
    "{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}],\"stream\":true,\"stream_options\":{}}",
    "{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}],\"stream\":false,\"stream_options\":null}",
    "{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}],\"stream\":null,\"model\":null,"
        + "\"metadata\":null,\"max_tokens\":null}",
    "{\"messages\":[{\"role\":\"assistant\",\"content\":null},{\"role\":\"user\"},"
        + "{\"role\":\"developer\",\"content\":[{\"type\":\"text\",\"text\":\"a\\ud83d\"},"
        + "{\"text\":\"\\ude00b\",\"type\":\"input_text\"},{\"type\":\"output_text\",\"text\":\"\"}]},"
        + "{\"role\":\"user\",\"content\":[]}]}",
    "{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}],\"max_tokens\":4294967295,"
        + "\"max_completion_tokens\":4294967295}",
    "{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}],\"n\":1,\"seed\":-5,\"logprobs\":false,"
        + "\"temperature\":0.2,\"top_p\":1,\"user\":\"u\",\"presence_penalty\":0,"
        + "\"frequency_penalty\":-2}",
    " {\"messages\" : [ {\"role\":\"user\",\"content\":\"" + "long ".repeat(400) + "\"} ] } \n",
  };

  /** Bodies the streaming read leaves to the tree path: served there, or refused there. */
  private static final String[] DECLINED = {
    // Served by the tree path, but of a shape this read does not know.
    "{\"messages\":[{\"role\":\"user\",\"content\":\"x\",\"tool_calls\":[]}]}",
    "{\"messages\":[{\"role\":\"user\",\"content\":\"x\",\"name\":null}]}",
    "{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}],\"x_caller_field\":1}",
    "{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}],\"metadata\":{\"fidelity_floor\":-0}}",
    "{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}],"
        + "\"metadata\":{\"joule_ceiling_uj\":\"1234567890123456789\"}}",
    "{\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"a\",\"x\":1}]}]}",
    "{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}],\"mesh_decision\":{\"questions\":"
        + "[{\"kind\":\"proposition\",\"text\":\"ok?\"}]}}",
    "{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}],\"response_format\":{\"type\":\"text\"}}",
    // Refused by the tree path.
    "{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}],\"stream_options\":{}}",
    "{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}],\"stream\":\"yes\"}",
    "{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}],\"metadata\":{\"jouleCeilingUj\":\"5\"}}",
    "{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}],\"metadata\":{\"joule_ceiling_uj\":-1}}",
    "{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}],\"metadata\":{\"fidelity_floor\":\"F5\"}}",
    "{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}],\"metadata\":{\"fidelity_floor\":\"f3\"}}",
    "{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}],\"metadata\":{\"fidelity_floor\":\" 3\"}}",
    "{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}],\"metadata\":{\"fidelity_floor\":\"F03\"}}",
    "{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}],\"metadata\":{\"fidelity_floor\":\"\"}}",
    "{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}],\"metadata\":{\"fidelity_floor\":5}}",
    "{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}],\"metadata\":{\"fidelity_floor\":-1}}",
    "{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}],\"metadata\":{\"fidelity_floor\":\"\u0663\"}}",
    "{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}],\"metadata\":{\"prompt_tokens\":1.0}}",
    "{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}],\"metadata\":[]}",
    "{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}],\"max_tokens\":1.0}",
    "{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}],\"max_tokens\":0}",
    "{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}],\"max_tokens\":4294967296}",
    "{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}],\"max_tokens\":99999999999999999999}",
    "{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}],\"max_tokens\":2,"
        + "\"max_completion_tokens\":3}",
    "{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}],\"n\":2}",
    "{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}],\"seed\":1e3}",
    "{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}],\"logprobs\":true}",
    "{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}],\"temperature\":2.5}",
    "{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}],\"temperature\":-1}",
    "{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}],\"top_p\":\"1\"}",
    "{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}],\"top_p\":1.5}",
    "{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}],\"frequency_penalty\":{\"odd\":[true]}}",
    "{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}],\"presence_penalty\":2.5}",
    "{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}],\"frequency_penalty\":-3}",
    "{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}],\"jcp_presentation\":null}",
    "{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}],\"jcp_presentation\":\"abcd\"}",
    "{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}],\"model\":\"\"}",
    "{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}],\"model\":\"a\\u0007b\"}",
    "{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}],\"model\":\"\\ud800\"}",
    "{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}],\"model\":7}",
    "{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}],\"input\":\"y\"}",
    "{\"messages\":[{\"role\":\"tool\",\"content\":\"x\"}]}",
    "{\"messages\":[{\"role\":\"us er\",\"content\":\"x\"}]}",
    "{\"messages\":[{\"content\":\"x\"}]}",
    "{\"messages\":[{\"role\":\"user\",\"content\":\"\\udc00\"}]}",
    "{\"messages\":[{\"role\":\"user\",\"content\":7}]}",
    "{\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"image_url\",\"text\":\"a\"}]}]}",
    "{\"messages\":[{\"role\":\"user\",\"content\":[\"a\"]}]}",
    "{\"messages\":[]}",
    "{\"messages\":[\"hi\"]}",
    "{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}, 1]}",
    "{\"messages\":null}",
    "{}",
    "[]",
    "",
    "{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]} {}",
    "{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]} x",
    "{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}],\"stream\":true,\"stream\":false}",
    "{\"messages\":[{\"role\":\"user\",\"content\":\"x\",\"role\":\"system\"}]}",
    "{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}],\"metadata\":{\"a\":1,\"a\":2}}",
    "{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}],\"metadata\":{\"a\":"
        + "[".repeat(1200)
        + "]".repeat(1200)
        + "}}",
    "\ufeff{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}",
    "{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]",
    "{'messages':[]}",
    "{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}] /* c */}",
  };

  @Test
  void commonBodies_areRead_asTheTreePathDerivesThem() throws Exception {
    List<String> bodies = new ArrayList<>(List.of(READ));
    bodies.add(
        "{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}],\"jcp_presentation\":\""
            + presentationHex()
            + "\",\"metadata\":{\"joule_ceiling_uj\":\"12\"}}");
    for (String body : bodies) {
      Optional<CommonChatBody> read = CommonChatBody.read(bytes(body), DEFAULT_CEILING);
      assertThat(read).as(body).isPresent();
      Endpoints.Asked tree = Endpoints.read(bytes(body), CHAT, DEFAULT_CEILING);
      assertThat(read.get().request()).as(body).isEqualTo(tree.request());
      assertThat(read.get().request().id()).as(body).isEqualTo(tree.request().id());
      assertThat(read.get().prompt().bytes()).as(body).isEqualTo(tree.prompt().bytes());
      assertThat(read.get().settings()).as(body).isEqualTo(tree.settings());
      assertThat(read.get().presentationHex())
          .as(body)
          .isEqualTo(tree.presentation().map(Presentation::toHex));
      assertThat(tree.decision()).as(body).isEmpty();
    }
  }

  @Test
  void otherBodies_areLeftToTheTreePath() throws Exception {
    for (String body : DECLINED) {
      assertThat(CommonChatBody.read(bytes(body), DEFAULT_CEILING)).as(body).isEmpty();
    }
    // Not UTF-8: an encoded surrogate, which Jackson alone would let through.
    byte[] surrogate = bytes("{\"messages\":[{\"role\":\"user\",\"content\":\"xxx\"}]}");
    surrogate[surrogate.length - 7] = (byte) 0xED;
    surrogate[surrogate.length - 6] = (byte) 0xA0;
    surrogate[surrogate.length - 5] = (byte) 0x80;
    assertThat(CommonChatBody.read(surrogate, DEFAULT_CEILING)).isEmpty();
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /** The hex of a real presentation (of another request: only its decoding is read here). */
  private static String presentationHex() throws Exception {
    SigningKey caller = Jcp.newKey();
    Instant now = Instant.now();
    GrantChain chain =
        Jcp.issueRoot(
            caller, Jcp.identity(Jcp.newKey()), 1_000, now.minusSeconds(60), now.plusSeconds(60));
    return Jcp.present(
            caller,
            chain,
            ServeRequest.generation(PromptText.of("x"), new ServeBounds(1, Fidelity.F0, 12)))
        .toHex();
  }
}
