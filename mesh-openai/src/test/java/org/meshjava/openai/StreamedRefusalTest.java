package org.meshjava.openai;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;
import org.meshjava.core.EngineException;

/**
 * A streamed request whose engine fails before its first token is answered as the same request
 * unstreamed is: an error reply with its own status, not a 200 stream carrying an error event. The
 * official SDKs raise a refusal from the status (the Node SDK's {@code APIError} subclasses, the
 * Java SDK's {@code BadRequestException}); an error event in a 200 stream reached a Node client as
 * a generic stream error with no status, and an SDK's retry rules (which resend 5xx) never saw it.
 */
class StreamedRefusalTest {

  private static ObjectNode chat(boolean stream) {
    ObjectNode body = Fixture.chat("Fail before the first token.");
    if (stream) {
      body.put("stream", true);
    }
    return body;
  }

  private static ObjectNode responses(boolean stream) {
    ObjectNode body = Fixture.JSON.createObjectNode();
    body.put("input", "Fail before the first token.");
    if (stream) {
      body.put("stream", true);
    }
    return body;
  }

  @Test
  void anEngineFailingBeforeItsFirstToken_isA502_streamedOrNot() throws Exception {
    try (Fixture f =
        new Fixture(
            null,
            // Words the engine declared its client's (SPEC.md 60.10), streamed or not.
            b ->
                b.backend(
                    ThrowingEngine.named(
                        "thrower", EngineException.toClient("the device went away"))),
            b -> {})) {
      for (boolean stream : new boolean[] {false, true}) {
        JsonNode chat = f.post("/v1/chat/completions", chat(stream)).error(502, "engine_failed");
        assertThat(chat.get("message").asText()).as("stream " + stream).contains("went away");
        f.post("/v1/responses", responses(stream)).error(502, "engine_failed");
      }
    }
  }

  @Test
  void anUpstreamRefusingAStream_isA400UpstreamRefused_onBothEndpoints() throws Exception {
    try (ScriptedUpstream up = new ScriptedUpstream(UpstreamWireTest.answering(400, "no", "no"));
        Fixture f = new Fixture(null, b -> b.backend(Fixture.remote(up.base())), b -> {})) {
      f.post("/v1/chat/completions", chat(true)).error(400, "upstream_refused");
      f.post("/v1/responses", responses(true)).error(400, "upstream_refused");
    }
  }

  @Test
  void aStreamThatServes_stillOpensWithTheRole_andEndsDone() throws Exception {
    try (Fixture f = new Fixture()) {
      Fixture.Answer a = f.post("/v1/chat/completions", chat(true));
      assertThat(a.status()).as(a.body()).isEqualTo(200);
      assertThat(a.contentType()).startsWith("text/event-stream");
      JsonNode first = Fixture.JSON.readTree(a.data().getFirst());
      assertThat(first.at("/choices/0/delta/role").asText()).isEqualTo("assistant");
      assertThat(a.data().getLast()).isEqualTo("[DONE]");
    }
  }
}
