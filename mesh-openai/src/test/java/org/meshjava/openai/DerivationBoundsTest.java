package org.meshjava.openai;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.meshjava.core.DecisionPrompt;
import org.meshjava.core.DecisionQuestion;
import org.meshjava.core.Fidelity;
import org.meshjava.core.PromptText;
import org.meshjava.core.ServeRequest;

/**
 * The edges of {@code granted_serve_request} (§2.3, SPEC.md section 70): each range at its ends,
 * bodies that are no object, {@code metadata} null, a typed decision, and {@code jcp_presentation}
 * read as the server reads it. A caller computing the id its presentation signs relies on each.
 */
class DerivationBoundsTest {
  private static final String CHAT = "\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]";

  private static JsonNode json(String s) throws Exception {
    return Fixture.JSON.readTree(s);
  }

  private static ServeRequest chat(String fields) throws Exception {
    return GrantedServeRequest.derive(json("{" + CHAT + "," + fields + "}"));
  }

  private static BindingException refused(String body) {
    try {
      GrantedServeRequest.derive(json(body));
    } catch (BindingException e) {
      return e;
    } catch (Exception e) {
      throw new AssertionError("not a BindingException: " + body, e);
    }
    throw new AssertionError("derived: " + body);
  }

  @Test
  void parseBody_readsOneObject_andRefusesWhatIsNotJson() throws Exception {
    assertThat(GrantedServeRequest.parseBody("{\"input\":\"x\"}".getBytes(StandardCharsets.UTF_8)))
        .isEqualTo(json("{\"input\":\"x\"}"));
    assertThatThrownBy(
            () -> GrantedServeRequest.parseBody("{\"input\":".getBytes(StandardCharsets.UTF_8)))
        .isInstanceOfSatisfying(
            BindingException.class,
            e -> assertThat(e.reason()).isEqualTo(BindingException.Reason.NOT_JSON));
  }

  @Test
  void aBodyThatIsNoObject_isRefusedAsNotJson_whicheverDeriveIsAsked() throws Exception {
    for (String body : List.of("[]", "[{\"messages\":[]}]", "\"input\"", "3")) {
      assertThat(refused(body).reason()).as(body).isEqualTo(BindingException.Reason.NOT_JSON);
      for (GrantedServeRequest.Endpoint endpoint : GrantedServeRequest.Endpoint.values()) {
        assertThatThrownBy(() -> GrantedServeRequest.derive(json(body), endpoint))
            .as(body + " " + endpoint)
            .isInstanceOfSatisfying(
                BindingException.class,
                e -> assertThat(e.reason()).isEqualTo(BindingException.Reason.NOT_JSON));
      }
    }
  }

  @Test
  void metadataNull_isMetadataLeftOut_anyOtherNonObjectIsRefused() throws Exception {
    BindingException granted = refused("{" + CHAT + ",\"metadata\":null}");
    assertThat(granted.reason()).isEqualTo(BindingException.Reason.MISSING_JOULE_CEILING);
    assertThat(granted.param()).contains("metadata.joule_ceiling_uj");

    ServeRequest ungranted =
        GrantedServeRequest.derive(
            json("{" + CHAT + ",\"metadata\":null}"),
            GrantedServeRequest.Endpoint.CHAT_COMPLETIONS,
            OptionalLong.of(77));
    assertThat(ungranted.jouleCeilingUj()).isEqualTo(77);

    BindingException text = refused("{" + CHAT + ",\"metadata\":\"x\"}");
    assertThat(text.reason()).isEqualTo(BindingException.Reason.INVALID_FIELD);
    assertThat(text.param()).contains("metadata");
  }

  @Test
  void metadataFigures_takeZeroAndTheirMaximum() throws Exception {
    ServeRequest zero = chat("\"metadata\":{\"prompt_tokens\":\"0\",\"joule_ceiling_uj\":0}");
    assertThat(zero.promptTokens()).isZero();
    assertThat(zero.jouleCeilingUj()).isZero();

    ServeRequest top =
        chat("\"metadata\":{\"prompt_tokens\":4294967295,\"joule_ceiling_uj\":\"1\"}");
    assertThat(top.promptTokens()).isEqualTo(0xFFFF_FFFFL);

    BindingException past =
        refused(
            "{" + CHAT + ",\"metadata\":{\"prompt_tokens\":4294967296,\"joule_ceiling_uj\":1}}");
    assertThat(past.reason()).isEqualTo(BindingException.Reason.INVALID_METADATA);
    assertThat(past.param()).contains("metadata.prompt_tokens");
  }

  @Test
  void outputCeilings_takeOneToU32Max_andNothingOutside() throws Exception {
    for (String field : List.of("max_tokens", "max_completion_tokens")) {
      assertThat(chat("\"" + field + "\":1,\"metadata\":{\"joule_ceiling_uj\":1}").maxTokens())
          .isEqualTo(1);
      assertThat(
              chat("\"" + field + "\":4294967295,\"metadata\":{\"joule_ceiling_uj\":1}")
                  .maxTokens())
          .isEqualTo(0xFFFF_FFFFL);
      for (String bad : List.of("0", "4294967296", "-1")) {
        BindingException e =
            refused(
                "{"
                    + CHAT
                    + ",\""
                    + field
                    + "\":"
                    + bad
                    + ",\"metadata\":{\"joule_ceiling_uj\":1}}");
        assertThat(e.reason())
            .as(field + " " + bad)
            .isEqualTo(BindingException.Reason.INVALID_FIELD);
        assertThat(e.param()).contains(field);
        assertThat(e.getMessage())
            .isEqualTo(
                "Invalid '"
                    + field
                    + "': integer "
                    + (bad.equals("4294967296")
                        ? "above maximum value. Expected a value <= 4294967295"
                        : "below minimum value. Expected a value >= 1")
                    + ", but got "
                    + bad
                    + " instead.");
        assertThat(e.code())
            .isEqualTo(
                bad.equals("4294967296") ? "integer_above_max_value" : "integer_below_min_value");
      }
    }
    assertThat(
            GrantedServeRequest.derive(
                    json(
                        "{\"input\":\"x\",\"max_output_tokens\":4294967295,"
                            + "\"metadata\":{\"joule_ceiling_uj\":1}}"))
                .maxTokens())
        .isEqualTo(0xFFFF_FFFFL);
  }

  /** The refusal of a decimal tells the caller what to change; of another type, it does not. */
  @Test
  void anIntegerFieldWrittenAsADecimal_isToldToDropThePoint() throws Exception {
    String decimal = "Invalid type for 'n': expected an integer, but got a decimal number instead.";
    assertThatThrownBy(() -> WholeNumberField.read(json("{\"n\":1.0}"), "n")).hasMessage(decimal);
    assertThatThrownBy(() -> WholeNumberField.read(json("{\"n\":\"1\"}"), "n"))
        .hasMessage("Invalid type for 'n': expected an integer, but got a string instead.");
    assertThatThrownBy(() -> WholeNumberField.read(json("{\"n\":1e0}"), "n", 1, 2))
        .hasMessage(decimal);
    assertThat(WholeNumberField.read(json("{\"n\":null}"), "n")).isEmpty();
  }

  @Test
  void aModelName_takesOneTo256Characters_withoutControlCharacters() throws Exception {
    String longest = "m".repeat(ServeRequest.MAX_MODEL_NAME);
    assertThat(chat("\"model\":\"" + longest + "\",\"metadata\":{\"joule_ceiling_uj\":1}").model())
        .contains(longest);
    for (String bad : List.of(longest + "m", "", "a\\u0007b")) {
      BindingException e =
          refused("{" + CHAT + ",\"model\":\"" + bad + "\",\"metadata\":{\"joule_ceiling_uj\":1}}");
      assertThat(e.reason()).as(bad).isEqualTo(BindingException.Reason.INVALID_FIELD);
      assertThat(e.param()).contains("model");
    }
  }

  /** §3.6: a decision's request is the decision prompt's, with no output tokens to price. */
  @Test
  void aBodyAskingADecision_isDerivedAsThatDecision() throws Exception {
    JsonNode body =
        json(
            "{"
                + CHAT
                + ",\"max_tokens\":50,\"mesh_decision\":{\"questions\":"
                + "[{\"kind\":\"proposition\",\"text\":\"Is it?\"}]},"
                + "\"metadata\":{\"joule_ceiling_uj\":\"900\",\"fidelity_floor\":\"F2\"}}");

    ServeRequest r = GrantedServeRequest.derive(body);

    assertThat(r.isDecision()).isTrue();
    assertThat(r.maxTokens()).isZero();
    assertThat(r)
        .isEqualTo(
            ServeRequest.decision(
                new DecisionPrompt(
                    List.of(new DecisionQuestion.Proposition("Is it?")),
                    PromptText.of("user 1\nx\n")),
                Fidelity.F2,
                900));
  }

  /** SPEC.md section 70: a presentation named as null is refused, never served ungranted. */
  @Test
  void jcpPresentation_isReadWhenAString_absentWhenLeftOut_andRefusedOtherwise() throws Exception {
    assertThat(GrantedServeRequest.presentationHex(json("{}"))).isEmpty();
    assertThat(GrantedServeRequest.presentationHex(json("{\"jcp_presentation\":\"a1\"}")))
        .contains("a1");
    for (String bad : List.of("null", "5", "[\"a1\"]")) {
      assertThatThrownBy(
              () -> GrantedServeRequest.presentationHex(json("{\"jcp_presentation\":" + bad + "}")))
          .as(bad)
          .isInstanceOfSatisfying(
              BindingException.class,
              e -> {
                assertThat(e.reason()).isEqualTo(BindingException.Reason.MALFORMED_PRESENTATION);
                assertThat(e.param()).contains("jcp_presentation");
              });
    }
    assertThatThrownBy(
            () -> GrantedServeRequest.presentationHex(json("{\"jcp_presentation\":null}")))
        .hasMessageContaining("leave the field out");
  }
}
