package org.meshjava.openai;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.meshjava.core.CostProfile;
import org.meshjava.core.Fidelity;
import org.meshjava.core.Recipe;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.energy.EstimatorMeter;
import org.meshjava.engine.ReferenceEngine;
import org.meshjava.jcp.GrantChain;
import org.meshjava.jcp.Jcp;
import org.meshjava.receipt.ChainHead;
import org.meshjava.receipt.Envelope;
import org.meshjava.receipt.Jcr1;
import org.meshjava.receipt.MeshReceipt;
import org.meshjava.steward.Steward;

/** A steward over reference engines behind a started server on 127.0.0.1, and a JSON client. */
final class Fixture implements AutoCloseable {
  static final ObjectMapper JSON = new ObjectMapper();

  final SigningKey key;
  final Steward steward;
  final OpenAiServer server;
  final HttpClient http = HttpClient.newHttpClient();

  /** A steward with an ephemeral identity: the zero-configuration one, which honours grants. */
  Fixture() {
    this(null, b -> {}, s -> {});
  }

  /**
   * A steward sealing with {@code key}, or with an ephemeral identity when it is null. A key starts
   * its chain at 0 and, unless {@code stewardConfig} gives it a durable journal, honours no grant
   * (§2.2).
   */
  Fixture(
      SigningKey key,
      Consumer<Steward.Builder> stewardConfig,
      Consumer<OpenAiServer.Builder> serverConfig) {
    this.key = key;
    Steward.Builder sb =
        (key == null ? Steward.ephemeral() : Steward.builder(key).chainHead(ChainHead.GENESIS))
            .meter(new EstimatorMeter())
            .backend(
                ReferenceEngine.builder()
                    .name("small")
                    .recipe(Recipe.of("small-ref"))
                    .fidelity(Fidelity.F1)
                    .costProfile(CostProfile.perToken(40))
                    .workPerToken(1)
                    .build())
            .backend(
                ReferenceEngine.builder()
                    .name("large")
                    .recipe(Recipe.of("large-ref"))
                    .fidelity(Fidelity.F4)
                    .costProfile(CostProfile.perToken(900))
                    .workPerToken(1)
                    .build());
    stewardConfig.accept(sb);
    this.steward = sb.build();
    OpenAiServer.Builder b = OpenAiServer.builder(steward).defaultJouleCeilingUj(1_000_000);
    serverConfig.accept(b);
    try {
      this.server = b.build().start();
    } catch (IOException e) {
      steward.close();
      throw new IllegalStateException(e);
    }
  }

  /**
   * A builder for "cheap": a backend cheaper per token than "small" at the same fidelity, so
   * routing picks it. Tests that give it a tokenizer or wrap it add it with {@code stewardConfig}.
   */
  static ReferenceEngine.Builder cheapBackend() {
    return ReferenceEngine.builder()
        .name("cheap")
        .recipe(Recipe.of("cheap-ref"))
        .fidelity(Fidelity.F1)
        .costProfile(CostProfile.perToken(1))
        .workPerToken(1);
  }

  URI uri(String path) {
    return URI.create(server.baseUri().toString().replaceAll("/v1$", "") + path);
  }

  record Answer(int status, String contentType, String body) {
    JsonNode json() {
      try {
        return JSON.readTree(body);
      } catch (IOException e) {
        throw new AssertionError("not JSON: " + body, e);
      }
    }

    /** Asserts OpenAI's error shape with this status and code, and no stack trace. */
    JsonNode error(int expectedStatus, String code) {
      assertThat(status).as(body).isEqualTo(expectedStatus);
      assertThat(contentType).startsWith("application/json");
      assertThat(body)
          .doesNotContain("Exception")
          .doesNotContain("\tat ")
          .doesNotContain("at org.");
      JsonNode e = json().get("error");
      assertThat(e).as(body).isNotNull();
      assertThat(e.get("message").asText()).isNotBlank();
      assertThat(e.get("type").asText()).isNotBlank();
      assertThat(e.has("param")).isTrue();
      assertThat(e.get("code").asText()).as(body).isEqualTo(code);
      return e;
    }

    /** The data lines of an event stream, in order. */
    List<String> data() {
      List<String> out = new ArrayList<>();
      for (String line : body.split("\n")) {
        if (line.startsWith("data: ")) {
          out.add(line.substring(6));
        }
      }
      return out;
    }
  }

  Answer post(String path, String body) {
    return send(
        HttpRequest.newBuilder(uri(path))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8)));
  }

  Answer post(String path, JsonNode body) {
    return post(path, body.toString());
  }

  Answer get(String path) {
    return send(HttpRequest.newBuilder(uri(path)).GET());
  }

  Answer send(HttpRequest.Builder request) {
    try {
      HttpResponse<String> r =
          http.send(request.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
      return new Answer(
          r.statusCode(), r.headers().firstValue("content-type").orElse(""), r.body());
    } catch (IOException e) {
      throw new AssertionError(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  /**
   * A root grant from {@code caller} to this steward: {@code budgetUj}, valid from a minute ago for
   * an hour.
   */
  GrantChain grant(SigningKey caller, long budgetUj) throws Exception {
    Instant now = Instant.now();
    return Jcp.issueRoot(
        caller, steward.identity(), budgetUj, now.minusSeconds(60), now.plus(Duration.ofHours(1)));
  }

  /** An upstream engine "remote" asking model "m" at {@code base}: F0, 1 µJ a token. */
  static UpstreamEngine remote(URI base) {
    return remoteBuilder(base).build();
  }

  /** The builder of {@link #remote}, for a test that sets more. */
  static UpstreamEngine.Builder remoteBuilder(URI base) {
    return UpstreamEngine.builder()
        .name("remote")
        .baseUri(base)
        .model("m")
        .fidelity(org.meshjava.core.Fidelity.F0)
        .costProfile(org.meshjava.core.CostProfile.perToken(1));
  }

  /** Posts a chat completion asking {@code prompt} without waiting for its answer. */
  java.util.concurrent.CompletableFuture<HttpResponse<String>> chatAsync(String prompt) {
    return http.sendAsync(
        HttpRequest.newBuilder(uri("/v1/chat/completions"))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(chat(prompt).toString()))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  /** What {@code action} wrote to standard error, where slf4j-simple logs. */
  static String stderrOf(Runnable action) {
    java.io.PrintStream err = System.err;
    java.io.ByteArrayOutputStream captured = new java.io.ByteArrayOutputStream();
    System.setErr(new java.io.PrintStream(captured, true, java.nio.charset.StandardCharsets.UTF_8));
    try {
      action.run();
    } finally {
      System.setErr(err);
    }
    return captured.toString(java.nio.charset.StandardCharsets.UTF_8);
  }

  /**
   * The head a raw client writes before a chat completions body of {@code length} bytes, for tests
   * that drive the socket themselves (half-closing it, or never reading).
   */
  static byte[] chatPostHead(int length) {
    return ("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            + "Content-Length: "
            + length
            + "\r\n\r\n")
        .getBytes(StandardCharsets.US_ASCII);
  }

  /**
   * A reference engine named {@code name} (recipe {@code name-ref}) priced and graded as the
   * fixture's "small" backend, for a test that wraps it in an engine that misbehaves.
   */
  static ReferenceEngine reference(String name) {
    return ReferenceEngine.builder()
        .name(name)
        .recipe(Recipe.of(name + "-ref"))
        .fidelity(Fidelity.F1)
        .costProfile(CostProfile.perToken(40))
        .workPerToken(1)
        .build();
  }

  static ObjectNode chat(String prompt) {
    ObjectNode body = JSON.createObjectNode();
    body.put("model", "auto");
    body.putArray("messages").addObject().put("role", "user").put("content", prompt);
    body.put("max_tokens", 8);
    return body;
  }

  /**
   * Checks that a usage.energy object carries a receipt its envelope seals, and returns the
   * receipt.
   */
  static MeshReceipt verifiedReceipt(JsonNode energy) throws Exception {
    Envelope envelope = Envelope.fromHex(energy.get("envelope_hex").asText());
    MeshReceipt opened = Jcr1.open(envelope).receipt();
    assertThat(ReceiptJson.parse(energy.get("receipt"))).isEqualTo(opened);
    assertThat(energy.get("provenance").asText()).isEqualTo(opened.energy().provenance().name());
    assertThat(energy.get("energy_uj").asLong()).isEqualTo(opened.energy().uj());
    assertThat(energy.get("envelope_id").asText()).isEqualTo(envelope.id().hex());
    return opened;
  }

  @Override
  public void close() {
    server.close();
    steward.close();
  }
}
