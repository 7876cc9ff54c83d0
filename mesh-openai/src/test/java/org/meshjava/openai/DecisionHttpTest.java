package org.meshjava.openai;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.jcp.GrantChain;
import org.meshjava.jcp.Jcp;
import org.meshjava.receipt.Envelope;
import org.meshjava.receipt.MeshReceipt;
import org.meshjava.receipt.ReceiptChain;

/**
 * Typed decisions (§3.6) over HTTP, in both shapes, ungranted and granted, priced per decision;
 * every receipt verifies as a chain, as {@code mesh verify --from-genesis} checks it.
 */
class DecisionHttpTest {
  private final Fixture f = new Fixture();
  private final List<Envelope> sealed = new ArrayList<>();

  @AfterEach
  void close() throws Exception {
    try {
      if (!sealed.isEmpty()) {
        assertThat(ReceiptChain.verifyFromGenesis(sealed)).hasSize(sealed.size());
      }
    } finally {
      f.close();
    }
  }

  private static ObjectNode chatSchema(String prompt) throws Exception {
    ObjectNode body = Fixture.chat(prompt);
    body.put("max_tokens", 4000); // a generation this long would be over the ceiling below
    body.set(
        "response_format",
        Fixture.JSON.readTree(
            """
        {"type": "json_schema", "json_schema": {"name": "triage", "strict": true, "schema": {
          "type": "object", "additionalProperties": false, "required": ["duplicate", "team"],
          "properties": {
            "duplicate": {"type": "boolean", "description": "Is this invoice a duplicate?"},
            "team": {"type": "string", "enum": ["finance", "ops", "legal"]}}}}}"""));
    body.putObject("metadata").put("joule_ceiling_uj", "100000");
    return body;
  }

  private MeshReceipt served(Fixture.Answer a) throws Exception {
    assertThat(a.status()).as(a.body()).isEqualTo(200);
    JsonNode energy = a.json().get("usage").get("energy");
    sealed.add(Envelope.fromHex(energy.get("envelope_hex").asText()));
    return Fixture.verifiedReceipt(energy);
  }

  @Test
  void jsonSchema_chat_isAskedAsADecision_andAnswersWithSchemaSatisfyingJson() throws Exception {
    ObjectNode body = chatSchema("Invoice 4411, EUR 1,200, same as 4410.");
    Fixture.Answer a = f.post("/v1/chat/completions", body);
    MeshReceipt receipt = served(a);
    JsonNode content =
        Fixture.JSON.readTree(
            a.json().get("choices").get(0).get("message").get("content").asText());
    assertThat(content.get("duplicate").isBoolean()).isTrue();
    assertThat(content.get("team").asText()).isIn("finance", "ops", "legal");
    assertThat(content.size()).isEqualTo(2);
    JsonNode answers = a.json().get("mesh_decision").get("answers");
    assertThat(answers.get(1).get("key").asText()).isEqualTo("team");
    assertThat(answers.get(1).get("answer").asText()).isEqualTo(content.get("team").asText());
    double sum = 0;
    for (JsonNode p : answers.get(1).get("probabilities")) {
      sum += p.asDouble();
    }
    assertThat(sum).isCloseTo(1.0, org.assertj.core.data.Offset.offset(1e-6));
    // A decision: priced per option, never for max_tokens; no output commitment; the request is
    // what the body derives to.
    ServeRequest request = GrantedServeRequest.derive(body);
    assertThat(request.decision().orElseThrow().questions()).isEqualTo(2);
    assertThat(request.decision().orElseThrow().optionsScored()).isEqualTo(5);
    assertThat(request.maxTokens()).isZero();
    assertThat(receipt.requestId()).isEqualTo(request.id());
    assertThat(receipt.outputCommitment()).isEmpty();
    assertThat(receipt.counters().tokensOut()).isZero();
    assertThat(a.json().get("usage").get("completion_tokens").asLong()).isZero();
    // The same body as a generation is over its ceiling.
    ObjectNode generation = body.deepCopy();
    generation.remove("response_format");
    f.post("/v1/chat/completions", generation).error(422, "no_admissible_backend");
  }

  @Test
  void jsonSchema_responses_isAskedAsADecisionToo() throws Exception {
    ObjectNode body = Fixture.JSON.createObjectNode();
    body.put("input", "Ticket: the VPN is down for the whole floor.");
    body.set(
        "text",
        Fixture.JSON.readTree(
            """
        {"format": {"type": "json_schema", "name": "t", "schema": {"type": "object",
          "properties": {"urgent": {"type": "boolean"}}}}}"""));
    Fixture.Answer a = f.post("/v1/responses", body);
    served(a);
    String text = a.json().get("output").get(0).get("content").get(0).get("text").asText();
    assertThat(Fixture.JSON.readTree(text).get("urgent").isBoolean()).isTrue();
    assertThat(a.json().get("mesh_decision").get("answers")).hasSize(1);
  }

  @Test
  void extensionField_asksPropositionChoiceAndScore() throws Exception {
    ObjectNode body = Fixture.chat("Invoice 4411.");
    body.set(
        "mesh_decision",
        Fixture.JSON.readTree(
            """
        {"questions": [
          {"kind": "proposition", "text": "Is it a duplicate?", "key": "dup"},
          {"kind": "choice", "text": "Which team?", "options": ["finance", "ops"]},
          {"kind": "score", "text": "How urgent?", "rubric": ["low", "mid", "high"]}]}"""));
    Fixture.Answer a = f.post("/v1/chat/completions", body);
    MeshReceipt receipt = served(a);
    JsonNode content =
        Fixture.JSON.readTree(
            a.json().get("choices").get(0).get("message").get("content").asText());
    assertThat(content.get("dup").isBoolean()).isTrue();
    assertThat(content.get("1").asText()).isIn("finance", "ops");
    assertThat(content.get("2").asText()).isIn("low", "mid", "high");
    assertThat(a.json().get("mesh_decision").get("answers").get(2).get("kind").asText())
        .isEqualTo("score");
    ObjectNode withCeiling = body.deepCopy();
    withCeiling.putObject("metadata").put("joule_ceiling_uj", "1000000");
    assertThat(receipt.requestId()).isEqualTo(GrantedServeRequest.derive(withCeiling).id());
  }

  @Test
  void granted_decision_isServedAndDebited_andAChangedQuestionIsRefused() throws Exception {
    SigningKey caller = Jcp.newKey();
    GrantChain chain = f.grant(caller, 5_000_000);
    ObjectNode body = chatSchema("Invoice 4411.");
    body.put(
        "jcp_presentation", Jcp.present(caller, chain, GrantedServeRequest.derive(body)).toHex());
    MeshReceipt receipt = served(f.post("/v1/chat/completions", body.deepCopy()));
    assertThat(receipt.grantId()).contains(chain.leaf().id().contentId());
    assertThat(f.steward.spend().remainingUj(chain)).isEqualTo(5_000_000 - receipt.energy().uj());

    // The request id covers the questions' words: changing an option after signing is refused.
    ObjectNode changed = chatSchema("Invoice 4411.");
    ((com.fasterxml.jackson.databind.node.ArrayNode)
            changed.at("/response_format/json_schema/schema/properties/team/enum"))
        .set(2, "sales");
    changed.put(
        "jcp_presentation",
        Jcp.present(caller, chain, GrantedServeRequest.derive(chatSchema("Invoice 4411.")))
            .toHex());
    f.post("/v1/chat/completions", changed).error(401, "bad-signature");
  }

  @Test
  void refusals_areClear400s() throws Exception {
    ObjectNode number = chatSchema("x");
    ((ObjectNode) number.at("/response_format/json_schema/schema/properties"))
        .putObject("amount")
        .put("type", "number");
    JsonNode e = f.post("/v1/chat/completions", number).error(400, "unsupported_schema");
    assertThat(e.get("message").asText()).contains("amount");

    ObjectNode jsonObject = Fixture.chat("x");
    jsonObject.putObject("response_format").put("type", "json_object");
    f.post("/v1/chat/completions", jsonObject).error(400, "unsupported_schema");

    ObjectNode both = chatSchema("x");
    both.set(
        "mesh_decision",
        Fixture.JSON.readTree("{\"questions\": [{\"kind\": \"proposition\", \"text\": \"t\"}]}"));
    f.post("/v1/chat/completions", both).error(400, "invalid_field");

    ObjectNode noOptions = Fixture.chat("x");
    noOptions.set(
        "mesh_decision",
        Fixture.JSON.readTree("{\"questions\": [{\"kind\": \"choice\", \"text\": \"t\"}]}"));
    f.post("/v1/chat/completions", noOptions).error(400, "invalid_field");

    ObjectNode streamed = chatSchema("x");
    streamed.put("stream", true);
    f.post("/v1/chat/completions", streamed).error(400, "unsupported");

    assertThat(f.steward.head().nextSequence()).isZero();
  }
}
