package org.meshjava.openai;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import org.junit.jupiter.api.Test;
import org.meshjava.core.CostProfile;
import org.meshjava.core.Fidelity;
import org.meshjava.core.Provenance;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.receipt.MeshReceipt;

/** An upstream engine forwarding to another mesh server, which is an OpenAI-compatible server. */
class UpstreamEngineTest {

  private static UpstreamEngine upstream(URI base) {
    return UpstreamEngine.builder()
        .name("remote")
        .baseUri(base)
        .model("small")
        .fidelity(Fidelity.F3)
        .costProfile(CostProfile.perToken(5))
        .build();
  }

  /** What the upstream engine sends the remote: the body, naming the remote model "small". */
  private static com.fasterxml.jackson.databind.node.ObjectNode relayed(String prompt) {
    com.fasterxml.jackson.databind.node.ObjectNode body = Fixture.chat(prompt);
    body.put("model", "small");
    return body;
  }

  @Test
  void upstream_forwardsTheMessagesAndSealsAnEstimatorReceipt() throws Exception {
    try (Fixture remote = new Fixture();
        Fixture front =
            new Fixture(
                SigningKey.generate(),
                b -> b.backend(upstream(remote.server.baseUri())),
                b -> {})) {
      String direct =
          remote
              .post("/v1/chat/completions", relayed("Relay me."))
              .json()
              .get("choices")
              .get(0)
              .get("message")
              .get("content")
              .asText();
      Fixture.Answer a = front.post("/v1/chat/completions", Fixture.chat("Relay me."));
      assertThat(a.status()).as(a.body()).isEqualTo(200);
      JsonNode r = a.json();
      assertThat(r.get("model").asText()).isEqualTo("remote");
      String relayed = r.get("choices").get(0).get("message").get("content").asText();
      // Relayed whole and counted as the upstream counts it (its usage: 8 tokens), never cut.
      assertThat(relayed).isEqualTo(direct);
      MeshReceipt receipt = Fixture.verifiedReceipt(r.get("usage").get("energy"));
      assertThat(receipt.energy().provenance()).isEqualTo(Provenance.Estimator);
      assertThat(receipt.backend()).isEqualTo("remote");
      assertThat(receipt.counters().tokensOut()).isEqualTo(8);
      assertThat(receipt.weights()).as("nothing here can check the upstream's weights").isEmpty();
      JsonNode model = front.get("/v1/models").json().get("data").get(2);
      assertThat(model.get("id").asText()).isEqualTo("remote");
      assertThat(model.get("mesh").get("deterministic").asBoolean()).isFalse();
      assertThat(model.get("mesh").get("tokenizer").asText()).isEqualTo("bytes-in/code-points-out");
    }
  }

  @Test
  void upstream_streamed_readsTheUpstreamsEventsAndSealsWhatArrived() throws Exception {
    try (Fixture remote = new Fixture();
        Fixture front =
            new Fixture(
                SigningKey.generate(),
                b -> b.backend(upstream(remote.server.baseUri())),
                b -> {})) {
      String direct =
          remote
              .post("/v1/chat/completions", relayed("Relay me."))
              .json()
              .get("choices")
              .get(0)
              .get("message")
              .get("content")
              .asText();
      com.fasterxml.jackson.databind.node.ObjectNode body = Fixture.chat("Relay me.");
      body.put("stream", true);
      Fixture.Answer a = front.post("/v1/chat/completions", body);
      assertThat(a.status()).as(a.body()).isEqualTo(200);
      StringBuilder text = new StringBuilder();
      JsonNode energy = null;
      for (String d : a.data()) {
        if (d.equals("[DONE]")) {
          continue;
        }
        JsonNode chunk = Fixture.JSON.readTree(d);
        text.append(chunk.path("choices").path(0).path("delta").path("content").asText(""));
        if (chunk.has("energy")) {
          energy = chunk.get("energy");
        }
      }
      assertThat(text.toString()).isEqualTo(direct);
      MeshReceipt receipt = Fixture.verifiedReceipt(energy);
      assertThat(receipt.counters().tokensOut()).isEqualTo(8);
      assertThat(receipt.backend()).isEqualTo("remote");
    }
  }

  @Test
  void upstream_claimsDeterminismOnlyWhenConfigured() {
    URI base = URI.create("http://127.0.0.1:9/v1");
    assertThat(upstream(base).deterministic()).isFalse();
    assertThat(upstream(base).domains()).isEmpty();
    assertThat(upstream(base).weights()).isEmpty();
    assertThat(
            UpstreamEngine.builder()
                .name("d")
                .baseUri(base)
                .model("m")
                .deterministic(true)
                .build()
                .deterministic())
        .isTrue();
  }

  /**
   * Regression: a failed upstream's 502 read "backend remote failed: upstream remote failed: ...":
   * the steward names the backend, so the engine says only what went wrong.
   */
  @Test
  void upstream_thatFails_isNamedOnceInTheReply() {
    try (Fixture front =
        new Fixture(
            SigningKey.generate(),
            b -> b.backend(upstream(URI.create("http://127.0.0.1:9/v1"))),
            b -> {})) {
      String message =
          front
              .post("/v1/chat/completions", Fixture.chat("Fail."))
              .error(502, "engine_failed")
              .get("message")
              .asText();
      assertThat(message).contains("backend remote failed: calling the upstream: ");
      assertThat(message.split("remote", -1)).as(message).hasSize(2);
    }
  }

  @Test
  void upstream_thatRefuses_isAnswered502EngineFailed() {
    try (Fixture remote = new Fixture();
        Fixture front =
            new Fixture(
                SigningKey.generate(),
                b -> b.backend(upstream(URI.create(remote.server.baseUri() + "/nowhere"))),
                b -> {})) {
      front.post("/v1/chat/completions", Fixture.chat("Fail.")).error(502, "engine_failed");
      assertThat(front.steward.head().nextSequence()).isZero();
    }
  }

  /**
   * An upstream that answers more than {@link UpstreamHttp#MAX_REPLY_BYTES} is a failed serve, not
   * a reply held in memory whole: a broken or hostile upstream cannot exhaust the heap.
   */
  @Test
  void upstream_whoseReplyIsTooLarge_isAnswered502EngineFailed() throws Exception {
    String content = "x".repeat(UpstreamHttp.MAX_REPLY_BYTES);
    byte[] reply =
        ("{\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":\""
                + content
                + "\"},\"finish_reason\":\"stop\"}]}")
            .getBytes(java.nio.charset.StandardCharsets.UTF_8);
    org.eclipse.jetty.server.Server upstream = new org.eclipse.jetty.server.Server();
    org.eclipse.jetty.server.ServerConnector connector =
        new org.eclipse.jetty.server.ServerConnector(upstream);
    connector.setHost("127.0.0.1");
    connector.setPort(0);
    upstream.addConnector(connector);
    upstream.setHandler(
        new org.eclipse.jetty.server.Handler.Abstract() {
          @Override
          public boolean handle(
              org.eclipse.jetty.server.Request request,
              org.eclipse.jetty.server.Response response,
              org.eclipse.jetty.util.Callback callback) {
            response.setStatus(200);
            response
                .getHeaders()
                .put(org.eclipse.jetty.http.HttpHeader.CONTENT_TYPE, "application/json");
            response.write(true, java.nio.ByteBuffer.wrap(reply), callback);
            return true;
          }
        });
    upstream.start();
    try (Fixture front =
        new Fixture(
            SigningKey.generate(),
            b ->
                b.backend(
                    upstream(URI.create("http://127.0.0.1:" + connector.getLocalPort() + "/v1"))),
            b -> {})) {
      front.post("/v1/chat/completions", Fixture.chat("Too much.")).error(502, "engine_failed");
      assertThat(front.steward.head().nextSequence()).isZero();
    } finally {
      upstream.stop();
    }
  }
}
