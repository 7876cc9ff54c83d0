package org.meshjava.openai;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.meshjava.core.DecisionPrompt;
import org.meshjava.core.DecisionQuestion;
import org.meshjava.core.Fidelity;
import org.meshjava.core.PromptText;
import org.meshjava.core.ServeRequest;
import org.meshjava.receipt.MeshReceipt;
import org.meshjava.router.Inadmissibility;
import org.meshjava.router.RouteCandidate;
import org.meshjava.steward.ServeResult;

/**
 * A whole reply is written straight to bytes ({@link WrittenJson}), not built as a tree first.
 * These pin its bytes to the tree it replaced: every field in the same order, each value rendered
 * by the same generator ({@link JsonBytes}), for text that needs every kind of escaping, a cut
 * reply and a typed decision's {@code mesh_decision}.
 */
class WholeReplyJsonTest {
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  /** Text that exercises the generator's escaping: quotes, controls, 2-, 3- and 4-byte UTF-8. */
  private static final String AWKWARD =
      "a \"quote\", a \\ backslash, a line\nbreak, a\ttab, \u0001, \u007f, \u2028, é, 中, 😀,"
          + " a lone \ud800 half, </script>";

  @Test
  void aChatCompletion_rendersAsTheTreeItReplaced_fieldForField() throws Exception {
    try (Fixture f = new Fixture()) {
      ServeResult result = serve(f);
      // The long one outgrows the generator's buffer (8 000 bytes) and is written in segments.
      for (String text : List.of("", "Hello!", AWKWARD, "\ud83d\ude00".repeat(3_000) + AWKWARD)) {
        for (boolean cut : List.of(false, true)) {
          byte[] written =
              JsonBytes.of(
                  Completions.reply(result, text, cut, 1_765_000_000L, Optional.empty()).body());
          assertThat(utf8(written))
              .as("%s, cut %s", text, cut)
              .isEqualTo(utf8(JsonBytes.of(chatTree(result, text, cut, 1_765_000_000L))));
        }
      }
    }
  }

  @Test
  void aDecisionsProbabilities_comeLast_asTheTreeRendersThem() throws Exception {
    try (Fixture f = new Fixture()) {
      ServeResult result = serve(f);
      ObjectNode decision = NODES.objectNode();
      ObjectNode answer = decision.putArray("answers").addObject();
      answer.put("key", "mood").put("answer", "calm");
      answer.putObject("probabilities").put("calm", 0.1).put("tense", 1e-7).put("odd", 1.0 / 3);
      byte[] written =
          JsonBytes.of(Completions.reply(result, "{}", false, 7, Optional.of(decision)).body());
      ObjectNode tree = chatTree(result, "{}", false, 7);
      tree.set("mesh_decision", decision);

      assertThat(utf8(written)).isEqualTo(utf8(JsonBytes.of(tree)));
    }
  }

  /**
   * A typed decision's serve accepts no tokens, so its energy carries {@code uj_per_accepted_token}
   * as null; each API's reply carries {@code mesh_decision} last, numbers JSON cannot hold (NaN,
   * infinity) and extreme ones as the tree renders them.
   */
  @Test
  void aDecisionsReply_inEachApi_rendersAsTheTreeItReplaced() throws Exception {
    try (Fixture f = new Fixture()) {
      DecisionPrompt prompt =
          new DecisionPrompt(
              List.of(new DecisionQuestion.Proposition("Is it?")), PromptText.of("user 1\nx\n"));
      ServeResult result =
          f.steward.serve(ServeRequest.decision(prompt, Fidelity.F2, 5_000_000), prompt);
      assertThat(result.receipt().ujPerAcceptedToken()).isEmpty();
      ObjectNode decision = NODES.objectNode();
      decision
          .putObject("probabilities")
          .put("nan", Double.NaN)
          .put("infinite", Double.NEGATIVE_INFINITY)
          .put("huge", Double.MAX_VALUE)
          .put("tiny", Double.MIN_VALUE)
          .put("negative zero", -0.0)
          .put("a \ud800 half", "\u2028");

      byte[] chat =
          JsonBytes.of(Completions.reply(result, AWKWARD, false, 7, Optional.of(decision)).body());
      ObjectNode tree = chatTree(result, AWKWARD, false, 7);
      tree.set("mesh_decision", decision);
      assertThat(utf8(chat)).isEqualTo(utf8(JsonBytes.of(tree)));

      JsonNode request = JsonMapper.builder().build().readTree("{\"input\":\"hi\"}");
      String responses =
          utf8(
              JsonBytes.of(
                  Responses.reply(request, result, "{}", false, 7, Optional.of(decision)).body()));
      assertThat(responses)
          .contains("\"uj_per_accepted_token\":null,")
          .endsWith(",\"mesh_decision\":" + utf8(JsonBytes.of(decision)) + "}");
    }
  }

  @Test
  void aResponsesUsage_rendersAsTheTreeItReplaced() throws Exception {
    try (Fixture f = new Fixture()) {
      ServeResult result = serve(f);
      JsonNode request = JsonMapper.builder().build().readTree("{\"input\":\"hi\"}");
      String written =
          utf8(
              JsonBytes.of(
                  Responses.reply(request, result, AWKWARD, false, 7, Optional.empty()).body()));
      ObjectNode usage = NODES.objectNode();
      usage.put("input_tokens", result.outcome().tokensIn());
      usage.putObject("input_tokens_details").put("cached_tokens", 0).put("cache_write_tokens", 0);
      usage.put("output_tokens", result.outcome().tokensOut());
      usage.putObject("output_tokens_details").put("reasoning_tokens", 0);
      usage.put("total_tokens", result.outcome().tokensIn() + result.outcome().tokensOut());
      usage.set("energy", energyTree(result));

      assertThat(written).endsWith(",\"usage\":" + utf8(JsonBytes.of(usage)) + "}");
    }
  }

  @Test
  void theEnergyAlone_asAStreamsLastChunkCarriesIt_rendersAsItsTree() throws Exception {
    try (Fixture f = new Fixture()) {
      ServeResult result = serve(f);

      assertThat(utf8(JsonBytes.of(EnergyUsage.energy(result))))
          .isEqualTo(utf8(JsonBytes.of(energyTree(result))));
    }
  }

  /**
   * The route in {@code usage.energy} is written straight onto the reply's generator, no longer
   * built as a tree and then serialized: these are its bytes, pinned literally (the tree this test
   * compares the reply to is made from the same field list), for an admissible candidate and an
   * inadmissible one with its reason, names and reasons that need escaping, and the tree {@link
   * EnergyUsage#candidates} still hands other front ends renders the same.
   */
  @Test
  void theRoute_writtenWithoutItsTree_isTheBytesItsTreeRendered() {
    List<RouteCandidate> route =
        List.of(
            new RouteCandidate("up\"stream\" é", Fidelity.F2, 0, Optional.empty()),
            new RouteCandidate(
                "reference",
                Fidelity.F4,
                Long.MAX_VALUE,
                Optional.of(
                    new Inadmissibility(
                        Inadmissibility.Kind.OVER_CEILING, "estimate 9 µJ\nover the ceiling 3"))));
    String written =
        utf8(JsonBytes.of(WrittenJson.node((g, s) -> EnergyUsage.writeCandidates(g, route))));

    assertThat(written)
        .isEqualTo(
            "[{\"backend\":\"up\\\"stream\\\" é\",\"fidelity\":\"F2\",\"estimate_uj\":0,"
                + "\"admissible\":true},{\"backend\":\"reference\",\"fidelity\":\"F4\","
                + "\"estimate_uj\":9223372036854775807,\"admissible\":false,"
                + "\"reason\":\"estimate 9 µJ\\nover the ceiling 3\"}]");
    assertThat(utf8(JsonBytes.of(EnergyUsage.candidates(route)))).isEqualTo(written);
    assertThat(utf8(JsonBytes.of(EnergyUsage.candidates(List.of())))).isEqualTo("[]");
  }

  private static ServeResult serve(Fixture f) throws Exception {
    Prompt prompt = new Prompt(List.of(new Prompt.Message("user", "render me")));
    ChatAsk ask = ChatAsk.builder(prompt).maxTokens(6).jouleCeilingUj(5_000_000).build();
    return f.steward.serve(ask.request(), ask.prompt());
  }

  /** The chat completion as the binding built it before it was written straight to bytes. */
  private static ObjectNode chatTree(ServeResult result, String text, boolean cut, long created) {
    ObjectNode root = NODES.objectNode();
    root.put("id", "chatcmpl-" + result.envelope().id().hex().substring(0, 32));
    root.put("object", "chat.completion");
    root.put("created", created);
    root.put("model", result.route().chosen().name());
    root.putNull("system_fingerprint");
    ObjectNode choice = root.putArray("choices").addObject();
    choice.put("index", 0);
    ObjectNode message = choice.putObject("message");
    message.put("role", "assistant");
    message.put("content", text);
    choice.putNull("logprobs");
    choice.put("finish_reason", cut ? "length" : "stop");
    ObjectNode usage = root.putObject("usage");
    usage.put("prompt_tokens", result.outcome().tokensIn());
    usage.put("completion_tokens", result.outcome().tokensOut());
    usage.put("total_tokens", result.outcome().tokensIn() + result.outcome().tokensOut());
    usage.set("energy", energyTree(result));
    return root;
  }

  private static ObjectNode energyTree(ServeResult result) {
    MeshReceipt r = result.receipt();
    ObjectNode e = NODES.objectNode();
    e.put("provenance", r.energy().provenance().name());
    e.put("energy_uj", r.energy().uj());
    if (r.ujPerAcceptedToken().isPresent()) {
      e.put("uj_per_accepted_token", r.ujPerAcceptedToken().getAsLong());
    } else {
      e.putNull("uj_per_accepted_token");
    }
    e.put("backend", r.backend());
    e.put("token_accounting", result.accounting().name());
    e.set("route", EnergyUsage.candidates(result.route().candidates()));
    // From the receipt itself, not the seal's core: an independent rendering.
    e.set("receipt", ReceiptJson.of(r));
    e.put("envelope_hex", result.envelope().hex());
    e.put("envelope_id", result.envelope().id().hex());
    return e;
  }

  private static String utf8(byte[] b) {
    return new String(b, StandardCharsets.UTF_8);
  }
}
