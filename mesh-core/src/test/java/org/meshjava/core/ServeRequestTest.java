package org.meshjava.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HexFormat;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.meshjava.core.cbor.CanonicalCbor;
import org.meshjava.core.cbor.CborMap;
import org.meshjava.core.cbor.CborText;
import org.meshjava.core.crypto.Blake3;
import org.meshjava.core.internal.RequestCbor;

/** The request's canonical form (§3.1, §3.6) and its validation. */
class ServeRequestTest {
  private static final HexFormat HEX = HexFormat.of();

  /** BLAKE3 of the empty prompt: the first case of the official vectors. */
  static final String EMPTY_PROMPT_HASH =
      "af1349b9f5f9a1a6a0404dea36dcc9499bcb25c9adc112b7cc9a93cae41f3262";

  /** The worked example of SPEC.md §10, byte by byte. */
  static final String WORKED_EXAMPLE_HEX =
      "a5" // map of 5 entries, keys in bytewise order of their encodings
          + "6a"
          + "6d61785f746f6b656e73" // "max_tokens"
          + "190100" // 256
          + "6b"
          + "70726f6d70745f68617368" // "prompt_hash"
          + "7840" // text of 64 bytes: the hash in lowercase hex
          + "6166313334396239663566396131613661303430346465613336646363393439"
          + "3962636232356339616463313132623763633961393363616534316633323632"
          + "6d"
          + "70726f6d70745f746f6b656e73" // "prompt_tokens"
          + "0c" // 12
          + "6e"
          + "666964656c6974795f666c6f6f72" // "fidelity_floor"
          + "02" // F2
          + "70"
          + "6a6f756c655f6365696c696e675f756a" // "joule_ceiling_uj"
          + "1a004c4b40"; // 5000000

  static ServeRequest workedExample() {
    return ServeRequest.generation(
        ContentId.fromHex(EMPTY_PROMPT_HASH), 12, new ServeBounds(256, Fidelity.F2, 5_000_000));
  }

  @Test
  void canonicalForm_ofTheWorkedExample_isExactlyTheseBytes() {
    assertThat(HEX.formatHex(workedExample().encode())).isEqualTo(WORKED_EXAMPLE_HEX);
  }

  @Test
  void promptHash_ofTheEmptyPrompt_isTheOfficialVector() {
    assertThat(ContentId.ofBytes(new byte[0]).hex()).isEqualTo(EMPTY_PROMPT_HASH);
  }

  @Test
  void id_isBlake3OfTheCanonicalBytes_pinned() {
    byte[] bytes = HEX.parseHex(WORKED_EXAMPLE_HEX);
    assertThat(workedExample().id().bytes()).isEqualTo(Blake3.hash(bytes));
    assertThat(workedExample().id().hex())
        .isEqualTo("64f74c8f31dca9ee91fe3d529c546720de0c595fb9c58182fd095b505a71cb14");
  }

  @Test
  void canonicalForm_decodesUnderTheStrictDecoder() throws Exception {
    byte[] bytes = workedExample().encode();
    assertThat(CanonicalCbor.decode(bytes)).isEqualTo(RequestCbor.encode(workedExample()));
  }

  @Test
  void canonicalForm_ofAGeneration_hasNoDecisionKey_soItsIdPredatesDecisions() {
    CborMap m = RequestCbor.encode(workedExample());
    assertThat(m.get("decision")).isEmpty();
    assertThat(m.entries())
        .extracting(e -> ((CborText) e.key()).value())
        .containsExactly(
            "max_tokens", "prompt_hash", "prompt_tokens", "fidelity_floor", "joule_ceiling_uj");
    // The id of the same generation built through the full constructor is the same.
    ServeRequest viaConstructor =
        new ServeRequest(
            ContentId.fromHex(EMPTY_PROMPT_HASH),
            12,
            256,
            Fidelity.F2,
            5_000_000,
            Optional.empty());
    assertThat(viaConstructor.id()).isEqualTo(workedExample().id());
  }

  @Test
  void canonicalForm_ofADecision_addsTheDecisionMapFirst() {
    ServeRequest r =
        ServeRequest.decision(
            ContentId.fromHex(EMPTY_PROMPT_HASH),
            12,
            new ServeBounds(256, Fidelity.F2, 5_000_000),
            new DecisionShape(1, 3, 10));
    String decisionEntry =
        "68"
            + "6465636973696f6e" // "decision"
            + "a3"
            + "69"
            + "7175657374696f6e73"
            + "01" // "questions": 1
            + "6d"
            + "736368656d615f746f6b656e73"
            + "0a" // "schema_tokens": 10
            + "6e"
            + "6f7074696f6e735f73636f726564"
            + "03"; // "options_scored": 3
    assertThat(HEX.formatHex(r.encode()))
        .isEqualTo("a6" + decisionEntry + WORKED_EXAMPLE_HEX.substring(2));
    assertThat(r.isDecision()).isTrue();
    assertThat(r.id()).isNotEqualTo(workedExample().id());
  }

  @Test
  void id_changesWithEveryField() {
    ServeRequest base = workedExample();
    ContentId other = ContentId.ofBytes(new byte[] {1});
    assertThat(
            ServeRequest.generation(other, 12, new ServeBounds(256, Fidelity.F2, 5_000_000)).id())
        .isNotEqualTo(base.id());
    assertThat(
            ServeRequest.generation(
                    base.promptHash(), 13, new ServeBounds(256, Fidelity.F2, 5_000_000))
                .id())
        .isNotEqualTo(base.id());
    assertThat(
            ServeRequest.generation(
                    base.promptHash(), 12, new ServeBounds(257, Fidelity.F2, 5_000_000))
                .id())
        .isNotEqualTo(base.id());
    assertThat(
            ServeRequest.generation(
                    base.promptHash(), 12, new ServeBounds(256, Fidelity.F3, 5_000_000))
                .id())
        .isNotEqualTo(base.id());
    assertThat(
            ServeRequest.generation(
                    base.promptHash(), 12, new ServeBounds(256, Fidelity.F2, 5_000_001))
                .id())
        .isNotEqualTo(base.id());
  }

  @Test
  void generation_ofPromptTextAndBounds_isTheRequestOfItsHashLengthAndThoseBounds() {
    PromptText prompt = PromptText.of("What did this answer cost?");
    ServeBounds bounds = new ServeBounds(32, Fidelity.F1, 100_000);
    ServeRequest named = ServeRequest.generation(prompt, bounds);
    assertThat(named).isEqualTo(ServeRequest.generation(prompt.hash(), prompt.length(), bounds));
    assertThat(named).isEqualTo(ServeRequest.generation(prompt, 32, Fidelity.F1, 100_000));
    assertThat(named.maxTokens()).isEqualTo(32);
    assertThat(named.fidelityFloor()).isEqualTo(Fidelity.F1);
    assertThat(named.jouleCeilingUj()).isEqualTo(100_000);
    assertThat(named.decision()).isEmpty();
  }

  @Test
  void construct_whenCountsOutsideU32_refuses() {
    ContentId h = ContentId.fromHex(EMPTY_PROMPT_HASH);
    assertThatThrownBy(() -> ServeRequest.generation(h, -1, new ServeBounds(1, Fidelity.F0, 1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("prompt_tokens");
    assertThatThrownBy(
            () -> ServeRequest.generation(h, 1L << 32, new ServeBounds(1, Fidelity.F0, 1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("prompt_tokens");
    assertThatThrownBy(
            () -> ServeRequest.generation(h, 1, new ServeBounds(1L << 32, Fidelity.F0, 1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("max_tokens");
    assertThatThrownBy(() -> ServeRequest.generation(h, 1, new ServeBounds(-1, Fidelity.F0, 1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("max_tokens");
    ServeRequest edge =
        ServeRequest.generation(h, 0xFFFF_FFFFL, new ServeBounds(0xFFFF_FFFFL, Fidelity.F0, 0));
    assertThat(HEX.formatHex(edge.encode())).contains("1affffffff");
  }

  @Test
  void construct_whenJouleCeilingNegative_refuses_andTheLargestIsAccepted() {
    ContentId h = ContentId.fromHex(EMPTY_PROMPT_HASH);
    assertThatThrownBy(() -> ServeRequest.generation(h, 1, new ServeBounds(1, Fidelity.F0, -1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("joule_ceiling_uj");
    ServeRequest max =
        ServeRequest.generation(h, 1, new ServeBounds(1, Fidelity.F0, Long.MAX_VALUE));
    assertThat(HEX.formatHex(max.encode())).endsWith("1b7fffffffffffffff");
  }

  @Test
  void construct_withoutAFidelityFloor_refuses() {
    ContentId h = ContentId.fromHex(EMPTY_PROMPT_HASH);
    assertThatThrownBy(() -> ServeRequest.generation(h, 1, new ServeBounds(1, null, 1)))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("fidelity_floor");
    assertThatThrownBy(() -> ServeRequest.generation(null, 1, new ServeBounds(1, Fidelity.F0, 1)))
        .isInstanceOf(NullPointerException.class);
  }

  @Test
  void construct_whenSchemaTokensExceedPromptTokens_refuses() {
    ContentId h = ContentId.fromHex(EMPTY_PROMPT_HASH);
    assertThatThrownBy(
            () ->
                ServeRequest.decision(
                    h, 9, new ServeBounds(0, Fidelity.F0, 1), new DecisionShape(1, 2, 10)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("schema_tokens");
    assertThat(
            ServeRequest.decision(
                h, 10, new ServeBounds(0, Fidelity.F0, 1), new DecisionShape(1, 2, 10)))
        .isNotNull();
  }
}
