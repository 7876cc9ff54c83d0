package org.meshjava.openai;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.http.HttpRequest;
import org.junit.jupiter.api.Test;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.jcp.GrantChain;
import org.meshjava.jcp.Jcp;

/**
 * An upstream backend that answers a forwarded request with an error status. Its own words name
 * what the operator runs (a model name, a host, a path, a key it echoes), and were relayed to the
 * API client in the 502's message; and a request the upstream refused as malformed (an odd message
 * role) was answered 502 {@code engine_failed}, a failed serve, which an SDK resends twice.
 */
class UpstreamRefusalTest {
  private static final String SECRET =
      "Invalid role for model secret-llama-70b at /srv/models on gpu-7.internal, key sk-abc123";

  private static ScriptedUpstream.Script refusing(int status) {
    String said = "{\"error\":{\"message\":\"" + SECRET + "\",\"type\":\"invalid_request_error\"}}";
    return UpstreamWireTest.answering(status, said, said);
  }

  private static ObjectNode ask(boolean stream) {
    ObjectNode body = Fixture.chat("Say hi.");
    body.put("model", "remote");
    if (stream) {
      body.put("stream", true);
    }
    return body;
  }

  /**
   * The error a reply carries: whole or streamed, the body with {@code status}, since a stream's
   * status waits for its first piece of text and the upstream refused before any.
   */
  private static JsonNode error(Fixture.Answer a, boolean stream, int status, String code)
      throws Exception {
    assertThat(a.contentType()).as("stream " + stream).startsWith("application/json");
    return a.error(status, code);
  }

  @Test
  void upstreamRefusingTheRequest_isA400UpstreamRefused_namingNothingTheUpstreamSaid()
      throws Exception {
    for (int status : new int[] {400, 413, 422}) {
      try (ScriptedUpstream up = new ScriptedUpstream(refusing(status));
          Fixture f = new Fixture(null, b -> b.backend(Fixture.remote(up.base())), b -> {})) {
        for (boolean stream : new boolean[] {false, true}) {
          Fixture.Answer a = f.post("/v1/chat/completions", ask(stream));
          JsonNode e = error(a, stream, 400, "upstream_refused");
          assertThat(e.get("type").asText()).isEqualTo("invalid_request_error");
          assertThat(e.get("message").asText())
              .as(a.body())
              .contains("HTTP " + status)
              .doesNotContain("secret-llama")
              .doesNotContain("gpu-7")
              .doesNotContain("sk-abc123")
              .doesNotStartWith("ENGINE_FAILED");
        }
      }
    }
  }

  @Test
  void upstreamFailingToServe_isStillA502_thatNamesNothingTheUpstreamSaid() throws Exception {
    for (int status : new int[] {403, 404, 429, 500, 503}) {
      try (ScriptedUpstream up = new ScriptedUpstream(refusing(status));
          Fixture f = new Fixture(null, b -> b.backend(Fixture.remote(up.base())), b -> {})) {
        for (boolean stream : new boolean[] {false, true}) {
          Fixture.Answer a = f.post("/v1/chat/completions", ask(stream));
          JsonNode e = error(a, stream, 502, "engine_failed");
          assertThat(e.get("message").asText())
              .as(a.body())
              .contains("HTTP " + status)
              .doesNotContain("sk-abc123")
              .doesNotContain("secret-llama");
        }
      }
    }
  }

  /**
   * On a grant the refusal was decided before the upstream was asked (§2 phase 2), so the
   * presentation is spent, and the meter's window closed on the prompt's estimate, which is debited
   * (SPEC 60.1 step 3): a resend is refused {@code presentation-spent}, so the answer says not to.
   */
  @Test
  void grantedRequestTheUpstreamRefuses_isDebitedThePromptsEstimate_andSaysNotToResend()
      throws Exception {
    SigningKey caller = SigningKey.generate();
    try (ScriptedUpstream up = new ScriptedUpstream(refusing(400));
        Fixture f = new Fixture(null, b -> b.backend(Fixture.remote(up.base())), b -> {})) {
      GrantChain chain = f.grant(caller, 5_000_000);
      ObjectNode body = ask(false);
      body.putObject("metadata").put("joule_ceiling_uj", "200000");
      long promptTokens = GrantedServeRequest.derive(body).promptTokens();
      body.put(
          "jcp_presentation", Jcp.present(caller, chain, GrantedServeRequest.derive(body)).toHex());
      var r =
          f.http.send(
              HttpRequest.newBuilder(f.uri("/v1/chat/completions"))
                  .header("Content-Type", "application/json")
                  .POST(HttpRequest.BodyPublishers.ofString(body.toString()))
                  .build(),
              java.net.http.HttpResponse.BodyHandlers.ofString());
      assertThat(r.statusCode()).as(r.body()).isEqualTo(400);
      assertThat(r.headers().firstValue("x-should-retry")).hasValue("false");
      // 1 µJ a token over the prompt the upstream was handed, and nothing left reserved.
      assertThat(f.steward.spend().remainingUj(chain)).isEqualTo(5_000_000 - promptTokens);
    }
  }
}
