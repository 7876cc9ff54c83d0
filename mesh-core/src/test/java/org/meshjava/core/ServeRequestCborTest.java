package org.meshjava.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.meshjava.core.cbor.CborInt;
import org.meshjava.core.cbor.CborMap;
import org.meshjava.core.cbor.CborText;
import org.meshjava.core.cbor.CborValue;
import org.meshjava.core.internal.RequestCbor;

/**
 * A request read back from its canonical form (§3.1, SPEC.md 10.3), as a journal and {@code mesh
 * grant} read one: every request comes back equal, and every map that is not a request's is refused
 * naming what is wrong. Also the {@code model} extension in the canonical form (SPEC.md §Model) and
 * the factories over prompt text.
 */
class ServeRequestCborTest {
  private static final ServeRequest GENERATION = ServeRequestTest.workedExample();

  static final ServeRequest DECISION =
      ServeRequest.decision(
          GENERATION.promptHash(),
          12,
          new ServeBounds(0, Fidelity.F3, 70),
          new DecisionShape(2, 5, 9));

  /** The worked example's entries with {@code key} set to {@code value}. */
  private static CborMap with(String key, CborValue value) {
    return entriesBut(key).put(key, value).build();
  }

  /** The worked example's entries without {@code key}. */
  private static CborMap without(String key) {
    return entriesBut(key).build();
  }

  private static CborMap.Builder entriesBut(String key) {
    CborMap.Builder b = CborMap.builder();
    for (CborMap.Entry e : RequestCbor.encode(GENERATION).entries()) {
      if (!e.key().equals(new CborText(key))) {
        b.put(e.key(), e.value());
      }
    }
    return b;
  }

  @Test
  void everyKindOfRequest_readsBackEqual() {
    for (ServeRequest r :
        List.of(GENERATION, DECISION, GENERATION.withModel("small"), DECISION.withModel("m+a"))) {
      assertThat(RequestCbor.decode(RequestCbor.encode(r))).isEqualTo(r);
    }
  }

  @Test
  void aNamedModel_entersTheCanonicalForm_andOnlyThen() {
    ServeRequest small = GENERATION.withModel("small");

    assertThat(RequestCbor.encode(small).get("model")).contains(new CborText("small"));
    assertThat(RequestCbor.encode(GENERATION).get("model")).isEmpty();
    assertThat(small.id()).isNotEqualTo(GENERATION.id());
    assertThat(DECISION.withModel("small").decision()).isEqualTo(DECISION.decision());
    assertThat(DECISION.withModel("small").maxTokens()).isZero();
  }

  @Test
  void aContentId_entersTheCanonicalForm_asItsHexText() {
    assertThat(RequestCbor.encode(GENERATION).get("prompt_hash"))
        .contains(new CborText(GENERATION.promptHash().hex()));
    assertThat(GENERATION.promptHash().hex()).hasSize(64).matches("[0-9a-f]{64}");
  }

  @Test
  void aModelName_isOneTo256CharactersWithoutControlCharacters() {
    String longest = "m".repeat(ServeRequest.MAX_MODEL_NAME);
    assertThat(GENERATION.withModel(longest).model()).contains(longest);
    for (String bad : List.of(longest + "m", "", "a\nb", "a\u0000")) {
      assertThatThrownBy(() -> GENERATION.withModel(bad))
          .as(bad)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("model name");
    }
  }

  @Test
  void aMapThatIsNoRequest_isRefusedNamingWhatIsWrong() {
    record Case(CborValue value, String message) {}
    for (Case c :
        List.of(
            new Case(new CborText("x"), "a request is a CBOR map"),
            new Case(with("extra", new CborInt(1)), "unknown request key"),
            new Case(
                CborMap.builder().put(new CborInt(1), new CborInt(1)).build(),
                "unknown request key"),
            new Case(without("prompt_hash"), "prompt_hash is a hex text string"),
            new Case(with("prompt_hash", new CborInt(1)), "prompt_hash is a hex text string"),
            new Case(without("max_tokens"), "max_tokens is a required unsigned integer"),
            new Case(with("max_tokens", new CborText("1")), "max_tokens is a required"),
            new Case(with("prompt_tokens", new CborInt(-1)), "prompt_tokens is a required"),
            new Case(with("fidelity_floor", new CborInt(5)), "fidelity level must be 0-4"),
            new Case(with("model", new CborInt(1)), "model is a text string"),
            new Case(with("decision", new CborInt(1)), "decision is a map of exactly three keys"),
            new Case(
                with("decision", CborMap.builder().put("questions", 1).build()),
                "decision is a map of exactly three keys"),
            new Case(
                with(
                    "decision",
                    CborMap.builder()
                        .put("questions", 1)
                        .put("options_scored", 2)
                        .put("schema", 0)
                        .build()),
                "schema_tokens is a required unsigned integer"))) {
      assertThatThrownBy(() -> RequestCbor.decode(c.value()))
          .as(c.message())
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining(c.message());
    }
  }

  /**
   * §3.1: a request carries both bounds of its contract. A map missing either is no request, never
   * one read with a default floor or an unbounded ceiling.
   */
  @Test
  void aMapWithoutItsFidelityFloorOrJouleCeiling_isRefused_neverGivenADefault() {
    for (String bound : List.of("fidelity_floor", "joule_ceiling_uj")) {
      assertThatThrownBy(() -> RequestCbor.decode(without(bound)))
          .as(bound)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining(bound + " is a required unsigned integer");
    }
  }

  @Test
  void theCountsOfZero_readBack() {
    ServeRequest zero =
        ServeRequest.generation(GENERATION.promptHash(), 0, new ServeBounds(0, Fidelity.F0, 0));
    assertThat(RequestCbor.decode(RequestCbor.encode(zero))).isEqualTo(zero);
  }

  @Test
  void aRequestForPromptText_addressesItsBytes_andCountsThem() {
    PromptText text = PromptText.of("héllo");

    ServeRequest r = ServeRequest.generation(text, 8, Fidelity.F1, 40);

    assertThat(r.promptHash())
        .isEqualTo(ContentId.ofBytes("héllo".getBytes(StandardCharsets.UTF_8)));
    assertThat(r.promptTokens()).isEqualTo(6);
    assertThat(r.maxTokens()).isEqualTo(8);
    assertThat(r.fidelityFloor()).isEqualTo(Fidelity.F1);
    assertThat(r.jouleCeilingUj()).isEqualTo(40);
    assertThat(r.decision()).isEqualTo(Optional.empty());
  }

  /** §3.6: a decision asked as prompt text is priced on its schema and state, with no output. */
  @Test
  void aRequestForADecisionPrompt_addressesSchemaAndState_withNoOutputTokens() {
    DecisionPrompt prompt =
        new DecisionPrompt(
            List.of(new DecisionQuestion.Choice("Which?", List.of("a", "b", "c"))),
            PromptText.of("state"));

    ServeRequest r = ServeRequest.decision(prompt, Fidelity.F2, 500);

    assertThat(r.promptHash()).isEqualTo(prompt.text().hash());
    assertThat(r.promptTokens()).isEqualTo(prompt.text().length());
    assertThat(r.maxTokens()).isZero();
    assertThat(r.decision()).contains(prompt.shape());
    assertThat(r.jouleCeilingUj()).isEqualTo(500);
    assertThat(r.fidelityFloor()).isEqualTo(Fidelity.F2);
  }
}
