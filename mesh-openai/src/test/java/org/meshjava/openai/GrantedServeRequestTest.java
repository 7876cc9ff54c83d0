package org.meshjava.openai;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;
import org.meshjava.core.ByteTokenizer;
import org.meshjava.core.ContentId;
import org.meshjava.core.Fidelity;
import org.meshjava.core.ServeBounds;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.TokenSequence;
import org.meshjava.core.cbor.CanonicalCbor;
import org.meshjava.core.cbor.CborMap;
import org.meshjava.core.cbor.CborText;

class GrantedServeRequestTest {
  private static JsonNode json(String s) throws Exception {
    return Fixture.JSON.readTree(s);
  }

  @Test
  void derive_chatBody_isPinnedByTheSpecExample() throws Exception {
    // The worked example of SPEC.md §70.
    JsonNode body =
        json(
            """
        {"model":"auto","max_tokens":16,
         "messages":[{"role":"system","content":"Be brief."},{"role":"user","content":"Hi \u00e9"}],
         "metadata":{"fidelity_floor":"F1","joule_ceiling_uj":"50000"}}""");
    byte[] text = "system 9\nBe brief.\nuser 5\nHi \u00e9\n".getBytes(StandardCharsets.UTF_8);
    assertThat(Prompt.ofChat(body).bytes()).isEqualTo(text);
    ServeRequest r = GrantedServeRequest.derive(body);
    assertThat(r)
        .isEqualTo(
            ServeRequest.generation(
                ContentId.ofBytes(text), text.length, new ServeBounds(16, Fidelity.F1, 50_000)));
    assertThat(r.promptHash().hex()).isEqualTo(SpecExample.PROMPT_HASH);
    assertThat(r.id().hex()).isEqualTo(SpecExample.REQUEST_ID);
  }

  /**
   * A body derived for signing is checked by the endpoint's own rule, for whichever endpoint its
   * fields name, so a caller signs nothing the server then answers 400 {@code unsupported}.
   */
  @Test
  void refuseUnserved_refusesWhatTheEndpointRefuses_andPassesWhatItServes() throws Exception {
    String[][] refused = {
      {"{\"n\":2,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}", "n"},
      {"{\"messages\":[{\"role\":\"tool\",\"content\":\"1\"}]}", "messages[0].role"},
      {
        "{\"messages\":[{\"role\":\"user\",\"name\":\"ann\",\"content\":\"hi\"}]}",
        "messages[0].name"
      },
      {"{\"input\":\"hi\",\"previous_response_id\":\"r\"}", "previous_response_id"},
      // The endpoint refuses a streamed decision as unsupported too, after the options.
      {
        "{\"stream\":true,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],"
            + "\"mesh_decision\":{\"questions\":[{\"kind\":\"proposition\",\"text\":\"t\"}]}}",
        "stream"
      }
    };
    for (String[] c : refused) {
      assertRefusedBeforeSigning(c[0], BindingException.Reason.UNSUPPORTED, c[1]);
    }
    GrantedServeRequest.refuseUnserved(
        json("{\"n\":1,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}"));
    GrantedServeRequest.refuseUnserved(json("{\"input\":\"hi\"}"));
  }

  /**
   * Regression: the chat endpoint refuses {@code stream_options} without {@code stream} true (and a
   * {@code stream} or {@code stream_options} of the wrong type) before it reads anything else, but
   * the check before signing did not make that refusal, so {@code mesh grant present --body} signed
   * a presentation for a body the server then answered 400.
   */
  @Test
  void refuseUnserved_refusesTheStreamSettingsTheEndpointRefuses() throws Exception {
    String[][] refused = {
      {"\"stream_options\":{\"include_usage\":true}", "stream_options"},
      {"\"stream\":false,\"stream_options\":{}", "stream_options"},
      {"\"stream\":true,\"stream_options\":true", "stream_options"},
      {"\"stream\":true,\"stream_options\":{\"include_usage\":1}", "stream_options.include_usage"},
      {"\"stream\":\"yes\"", "stream"}
    };
    for (String[] c : refused) {
      String body = "{" + c[0] + ",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";
      assertRefusedBeforeSigning(body, BindingException.Reason.INVALID_FIELD, c[1]);
    }
    GrantedServeRequest.refuseUnserved(
        json(
            "{\"stream\":true,\"stream_options\":{\"include_usage\":true},"
                + "\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}"));
    GrantedServeRequest.refuseUnserved(
        json("{\"stream_options\":null,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}"));
    // A responses body's stream_options without stream is served (its own rule, SPEC 70).
    GrantedServeRequest.refuseUnserved(
        json("{\"input\":\"hi\",\"stream_options\":{\"include_usage\":true}}"));
  }

  private static void assertRefusedBeforeSigning(
      String body, BindingException.Reason reason, String param) {
    refusal(body, () -> GrantedServeRequest.refuseUnserved(json(body)), reason, param);
  }

  /** What {@code call} threw, checked to be a {@link BindingException} for {@code reason}. */
  private static BindingException refusal(
      String as, ThrowingCallable call, BindingException.Reason reason, String param) {
    BindingException e =
        (BindingException)
            assertThatThrownBy(call).as(as).isInstanceOf(BindingException.class).actual();
    assertThat(e.reason()).as(as).isEqualTo(reason);
    assertThat(e.param()).as(as).hasValue(param);
    return e;
  }

  /**
   * {@code metadata.fidelity_floor} is read by {@link Fidelity#parse}, the rule {@code mesh
   * serve}'s configuration and the Spring starter share: the name or the level, as a string or a
   * whole number; anything else is refused naming the field and the forms it takes.
   */
  @Test
  void derive_fidelityFloor_isTheNameOrTheLevel_anythingElseIsRefused() throws Exception {
    for (String floor : new String[] {"\"F3\"", "\"3\"", "3"}) {
      assertThat(GrantedServeRequest.derive(withFloor(floor)).fidelityFloor())
          .as(floor)
          .isEqualTo(Fidelity.F3);
    }
    for (String bad :
        new String[] {"\"f3\"", "\"F03\"", "\"F5\"", "5", "-1", "\" 3\"", "\"\"", "3.0", "true"}) {
      BindingException e =
          refusal(
              bad,
              () -> GrantedServeRequest.derive(withFloor(bad)),
              BindingException.Reason.INVALID_METADATA,
              "metadata.fidelity_floor");
      assertThat(e.getMessage()).as(bad).contains("metadata.fidelity_floor must be F0-F4 or 0-4");
    }
  }

  private static JsonNode withFloor(String floor) throws Exception {
    return json(
        "{\"max_tokens\":16,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],"
            + "\"metadata\":{\"fidelity_floor\":"
            + floor
            + ",\"joule_ceiling_uj\":\"50000\"}}");
  }

  @Test
  void derive_readsEachSourceOfEachField() throws Exception {
    ServeRequest r =
        GrantedServeRequest.derive(
            json(
                """
        {"messages":[{"role":"user","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}],
         "max_completion_tokens":7,"metadata":{"prompt_tokens":"3","joule_ceiling_uj":9,"fidelity_floor":4}}"""));
    assertThat(r.promptTokens()).isEqualTo(3);
    assertThat(r.maxTokens()).isEqualTo(7);
    assertThat(r.fidelityFloor()).isEqualTo(Fidelity.F4);
    assertThat(r.jouleCeilingUj()).isEqualTo(9);
    assertThat(r.promptHash())
        .isEqualTo(ContentId.ofBytes("user 2\nab\n".getBytes(StandardCharsets.UTF_8)));

    ServeRequest defaults =
        GrantedServeRequest.derive(
            json(
                """
        {"input":"hi","metadata":{"joule_ceiling_uj":"1"}}"""));
    assertThat(defaults.maxTokens()).isEqualTo(GrantedServeRequest.DEFAULT_MAX_TOKENS);
    assertThat(defaults.fidelityFloor()).isEqualTo(Fidelity.F0);
    assertThat(defaults.promptTokens()).isEqualTo("user 2\nhi\n".length());
  }

  @Test
  void derive_ignoresFieldsOutsideTheDerivation() throws Exception {
    ServeRequest a =
        GrantedServeRequest.derive(
            json(
                """
        {"messages":[{"role":"user","content":"x"}],"metadata":{"joule_ceiling_uj":"5"}}"""));
    ServeRequest b =
        GrantedServeRequest.derive(
            json(
                """
        {"model":"auto","temperature":0.3,"user":"u","stream":true,"jcp_presentation":"00",
         "messages":[{"role":"user","content":"x","name":"n"}],
         "metadata":{"joule_ceiling_uj":"5","trace":"abc"}}"""));
    assertThat(a).isEqualTo(b);
  }

  @Test
  void derive_aNamedModelEntersTheRequest_autoAndAbsenceDoNot() throws Exception {
    String base =
        """
        "messages":[{"role":"user","content":"x"}],"metadata":{"joule_ceiling_uj":"5"}}""";
    ServeRequest none = GrantedServeRequest.derive(json("{" + base));
    ServeRequest auto = GrantedServeRequest.derive(json("{\"model\":\"auto\"," + base));
    ServeRequest small = GrantedServeRequest.derive(json("{\"model\":\"small\"," + base));
    assertThat(auto).isEqualTo(none);
    assertThat(none.model()).isEmpty();
    assertThat(small.model()).contains("small");
    assertThat(small.id()).isNotEqualTo(none.id());
    // The name is in the canonical form the grant's request id covers; that every such form reads
    // back equal is core's ServeRequestCborTest.
    assertThat(((CborMap) CanonicalCbor.decode(small.encode())).get("model"))
        .contains(new CborText("small"));
    assertThatThrownBy(() -> GrantedServeRequest.derive(json("{\"model\":5," + base)))
        .isInstanceOfSatisfying(
            BindingException.class,
            e -> assertThat(e.reason()).isEqualTo(BindingException.Reason.INVALID_FIELD));
  }

  @Test
  void derive_forAnEndpoint_refusesABodyThatAlsoCarriesTheOtherEndpointsPrompt() throws Exception {
    // Served on its endpoint's field alone, such a body had the other prompt silently ignored,
    // while derive(body), which a caller signs with, refused it (SPEC.md section 70).
    JsonNode both =
        json(
            """
        {"messages":[{"role":"user","content":"x"}],"input":"y","metadata":{"joule_ceiling_uj":"5"}}""");
    assertThatThrownBy(
            () -> GrantedServeRequest.derive(both, GrantedServeRequest.Endpoint.CHAT_COMPLETIONS))
        .isInstanceOfSatisfying(
            BindingException.class,
            e -> {
              assertThat(e.reason()).isEqualTo(BindingException.Reason.INVALID_FIELD);
              assertThat(e.param()).contains("input");
            });
    assertThatThrownBy(
            () -> GrantedServeRequest.derive(both, GrantedServeRequest.Endpoint.RESPONSES))
        .isInstanceOfSatisfying(
            BindingException.class,
            e -> {
              assertThat(e.reason()).isEqualTo(BindingException.Reason.INVALID_FIELD);
              assertThat(e.param()).contains("messages");
            });
  }

  @Test
  void derive_refusesAmbiguousOrIncompleteBodies() {
    assertThatThrownBy(
            () ->
                GrantedServeRequest.derive(
                    json(
                        """
        {"messages":[{"role":"user","content":"x"}]}""")))
        .isInstanceOfSatisfying(
            BindingException.class,
            e -> assertThat(e.reason()).isEqualTo(BindingException.Reason.MISSING_JOULE_CEILING));
    assertThatThrownBy(
            () ->
                GrantedServeRequest.derive(
                    json(
                        """
        {"messages":[{"role":"user","content":"x"}],"input":"y","metadata":{"joule_ceiling_uj":"5"}}""")))
        .isInstanceOf(BindingException.class);
    assertThatThrownBy(
            () ->
                GrantedServeRequest.derive(
                    json(
                        """
        {"messages":[{"role":"user","content":"x"}],"max_tokens":3,"max_completion_tokens":4,
         "metadata":{"joule_ceiling_uj":"5"}}""")))
        .isInstanceOf(BindingException.class);
    assertThatThrownBy(
            () ->
                GrantedServeRequest.derive(
                    json(
                        """
        {"messages":[{"role":"user\\n","content":"x"}],"metadata":{"joule_ceiling_uj":"5"}}""")))
        .isInstanceOf(BindingException.class);
  }

  /**
   * Regression: a joule ceiling past u64 was refused as "0-18446744073709551615", a range the
   * binding does not take (from 2^63 it refused with "at most 9223372036854775807"). Every
   * out-of-range value now gets the one range accepted: 0 to 2^63-1 (SPEC.md 10.1.4).
   */
  @Test
  void derive_refusesAJouleCeilingOutOfRange_statingTheRangeItTakes() throws Exception {
    String stated =
        "metadata.joule_ceiling_uj must be a decimal string or whole number 0-9223372036854775807";
    for (String ceiling :
        List.of(
            "\"9223372036854775808\"",
            "9223372036854775808",
            "\"18446744073709551615\"",
            "\"18446744073709551616\"",
            "18446744073709551616",
            "-1",
            "\"-1\"",
            "\"1e3\"")) {
      JsonNode body =
          json(
              "{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}],"
                  + "\"metadata\":{\"joule_ceiling_uj\":"
                  + ceiling
                  + "}}");
      assertThatThrownBy(() -> GrantedServeRequest.derive(body))
          .as(ceiling)
          .isInstanceOfSatisfying(
              BindingException.class,
              e -> assertThat(e.reason()).isEqualTo(BindingException.Reason.INVALID_METADATA))
          .hasMessageContaining(stated);
    }
    ServeRequest top =
        GrantedServeRequest.derive(
            json(
                """
        {"messages":[{"role":"user","content":"x"}],"metadata":{"joule_ceiling_uj":"9223372036854775807"}}"""));
    assertThat(top.jouleCeilingUj()).isEqualTo(Long.MAX_VALUE);
  }

  @Test
  void prompt_parseInvertsBytes_forRandomMessages() {
    long seed = System.nanoTime();
    Random rnd = new Random(seed);
    String alphabet = "ab \n\u00e9\u4e2d\ud83d\ude00 7:";
    for (int round = 0; round < 500; round++) {
      List<Prompt.Message> ms = new ArrayList<>();
      int n = 1 + rnd.nextInt(4);
      for (int i = 0; i < n; i++) {
        StringBuilder sb = new StringBuilder();
        int len = rnd.nextInt(12);
        for (int k = 0; k < len; k++) {
          int cp =
              alphabet.codePointAt(
                  alphabet.offsetByCodePoints(
                      0, rnd.nextInt(alphabet.codePointCount(0, alphabet.length()))));
          sb.appendCodePoint(cp);
        }
        ms.add(new Prompt.Message(rnd.nextBoolean() ? "user" : "assistant", sb.toString()));
      }
      Prompt p = new Prompt(ms);
      assertThat(Prompt.parse(p.bytes())).as("seed " + seed).isEqualTo(p);
    }
  }

  @Test
  void prompt_parseRefusesTextThatIsNotCanonical() {
    for (String bad :
        List.of("user 3\nab\n", "user 1\nab\n", "user 01\na\n", "user\na\n", "", "us er 1\na\n")) {
      assertThatThrownBy(() -> Prompt.parse(bad.getBytes(StandardCharsets.UTF_8)))
          .as(bad)
          .isInstanceOf(IllegalArgumentException.class);
    }
  }

  @Test
  void byteTokenizer_encodesBytesAndRendersIdsInBase36() {
    assertThat(ByteTokenizer.INSTANCE.encode(new byte[] {0, 65, (byte) 0xFF}))
        .isEqualTo(TokenSequence.of(0, 65, 255));
    assertThat(ByteTokenizer.INSTANCE.decode(TokenSequence.of(35, 36, 50256)))
        .isEqualTo("z 10 12s0");
    assertThat(
            UpstreamEngine.builder()
                .name("u")
                .baseUri(java.net.URI.create("http://127.0.0.1:1/v1"))
                .model("m")
                .build()
                .tokenizer()
                .decode(TokenSequence.of(0x48, 0x1F600)))
        .isEqualTo("H\uD83D\uDE00");
  }

  /** The figure the spec draft prints. */
  static final class SpecExample {
    static final String PROMPT_HASH =
        "8710487912d17e23da92c9212c6b30bfe6aee14777dcb9a8c177ed21d50c74ef";
    static final String REQUEST_ID =
        "f8aca9e752ededa09b4854619d4b3091f384fc2e575db7fdb1987b67c546451f";
  }
}
