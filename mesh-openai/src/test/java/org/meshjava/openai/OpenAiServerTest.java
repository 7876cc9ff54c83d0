package org.meshjava.openai;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.http.HttpRequest;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.meshjava.core.Provenance;
import org.meshjava.receipt.MeshReceipt;

class OpenAiServerTest {
  private final Fixture f = new Fixture();

  @AfterEach
  void close() {
    f.close();
  }

  @Test
  void replies_doNotNameTheServerSoftwareOrItsVersion() throws Exception {
    try (Fixture f = new Fixture()) {
      java.net.http.HttpResponse<String> r =
          java.net.http.HttpClient.newHttpClient()
              .send(
                  java.net.http.HttpRequest.newBuilder(f.uri("/healthz")).build(),
                  java.net.http.HttpResponse.BodyHandlers.ofString());
      assertThat(r.statusCode()).isEqualTo(200);
      assertThat(r.headers().firstValue("Server")).isEmpty();
      assertThat(r.headers().map().toString()).doesNotContainIgnoringCase("jetty");
    }
  }

  /**
   * Regression: after a burst of connections grew the request pool to its maximum, Jetty's defaults
   * stopped one idle thread per 60 s idle timeout, so hundreds of threads stayed for hours. The
   * server's pool now stops every thread idle for {@link OpenAiServer#THREAD_IDLE_TIMEOUT} above
   * its minimum at once. A pool made the same way with a 200 ms idle timeout shows it in well under
   * a second; one thread per idle timeout would take its 100 threads 20 s.
   */
  @Test
  void afterABurst_theRequestPoolShedsItsIdleThreads_withinAboutOneIdleTimeout() throws Exception {
    QueuedThreadPool pool = OpenAiServer.requestThreads(208, Duration.ofMillis(200));
    pool.start();
    try {
      int before = pool.getThreads();
      CountDownLatch release = new CountDownLatch(1);
      int burst = 100;
      try {
        for (int i = 0; i < burst; i++) {
          pool.execute(
              () -> {
                try {
                  release.await();
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                }
              });
        }
        long grown = System.nanoTime() + 10_000_000_000L;
        while (pool.getThreads() < before + burst / 2 && System.nanoTime() < grown) {
          Thread.sleep(10);
        }
        assertThat(pool.getThreads())
            .as("grown by the burst")
            .isGreaterThanOrEqualTo(before + burst / 2);
      } finally {
        release.countDown();
      }

      long shed = System.nanoTime() + 3_000_000_000L;
      while (pool.getThreads() > before && System.nanoTime() < shed) {
        Thread.sleep(20);
      }
      assertThat(pool.getThreads()).as(pool.toString()).isLessThanOrEqualTo(before);
    } finally {
      pool.stop();
    }
  }

  /** The server's own pool is made that way, with its idle timeout. */
  @Test
  void theServersRequestPool_stopsEveryIdleThreadAboveItsMinimum_afterTenSeconds() {
    QueuedThreadPool pool = f.server.threadPool();
    assertThat(pool.getIdleTimeout())
        .isEqualTo(OpenAiServer.THREAD_IDLE_TIMEOUT.toMillis())
        .isEqualTo(10_000);
    assertThat(pool.getMaxEvictCount()).isEqualTo(pool.getMaxThreads());
  }

  @Test
  void aBurstOfNewConnections_queuesForTheAcceptor_ratherThanLosingSyns() throws Exception {
    try (Fixture f = new Fixture()) {
      // The JDK's default of 50 overflowed on loaded cores; each overflow is a 1 s SYN retransmit.
      assertThat(f.server.acceptQueueSize()).isEqualTo(OpenAiServer.ACCEPT_QUEUE).isEqualTo(1024);
      java.util.List<java.net.Socket> burst = new java.util.ArrayList<>();
      try {
        long start = System.nanoTime();
        for (int i = 0; i < 200; i++) {
          java.net.Socket s = new java.net.Socket();
          s.connect(new java.net.InetSocketAddress("127.0.0.1", f.server.port()), 5_000);
          burst.add(s);
        }
        assertThat((System.nanoTime() - start) / 1_000_000)
            .as("200 connects, ms")
            .isLessThan(5_000);
      } finally {
        for (java.net.Socket s : burst) {
          s.close();
        }
      }
      assertThat(f.post("/v1/chat/completions", Fixture.chat("after")).status()).isEqualTo(200);
    }
  }

  @Test
  void chat_plain_answersACompletionWhoseUsageCarriesTheSealedReceipt() throws Exception {
    Fixture.Answer a = f.post("/v1/chat/completions", Fixture.chat("Say hello."));
    assertThat(a.status()).as(a.body()).isEqualTo(200);
    JsonNode r = a.json();
    assertThat(r.get("object").asText()).isEqualTo("chat.completion");
    assertThat(r.get("model").asText()).isEqualTo("small");
    JsonNode choice = r.get("choices").get(0);
    assertThat(choice.get("message").get("role").asText()).isEqualTo("assistant");
    assertThat(choice.get("message").get("content").asText().split(" ")).hasSize(8);
    assertThat(choice.get("finish_reason").asText()).isEqualTo("length");
    JsonNode usage = r.get("usage");
    assertThat(usage.get("completion_tokens").asLong()).isEqualTo(8);
    assertThat(usage.get("total_tokens").asLong())
        .isEqualTo(usage.get("prompt_tokens").asLong() + 8);
    MeshReceipt receipt = Fixture.verifiedReceipt(usage.get("energy"));
    assertThat(receipt.steward()).isEqualTo(f.steward.identity());
    assertThat(receipt.energy().provenance()).isEqualTo(Provenance.Estimator);
    assertThat(usage.get("energy").get("uj_per_accepted_token").asLong())
        .isEqualTo(receipt.ujPerAcceptedToken().getAsLong());
    assertThat(usage.get("energy").get("route")).hasSize(2);
    // The receipt names exactly the request granted_serve_request derives from the body.
    ObjectNode withCeiling = Fixture.chat("Say hello.");
    withCeiling.putObject("metadata").put("joule_ceiling_uj", "1000000");
    assertThat(receipt.requestId()).isEqualTo(GrantedServeRequest.derive(withCeiling).id());
  }

  @Test
  void chat_stream_sendsRoleContentThenFinishWithTheReceiptThenDone() throws Exception {
    String whole =
        f.post("/v1/chat/completions", Fixture.chat("Stream me."))
            .json()
            .get("choices")
            .get(0)
            .get("message")
            .get("content")
            .asText();
    ObjectNode body = Fixture.chat("Stream me.");
    body.put("stream", true);
    Fixture.Answer a = f.post("/v1/chat/completions", body);
    assertThat(a.status()).as(a.body()).isEqualTo(200);
    assertThat(a.contentType()).startsWith("text/event-stream");
    List<String> data = a.data();
    assertThat(data.getLast()).isEqualTo("[DONE]");
    JsonNode first = Fixture.JSON.readTree(data.getFirst());
    assertThat(first.get("object").asText()).isEqualTo("chat.completion.chunk");
    assertThat(first.get("choices").get(0).get("delta").get("role").asText())
        .isEqualTo("assistant");
    StringBuilder text = new StringBuilder();
    for (String d : data.subList(0, data.size() - 2)) {
      JsonNode delta = Fixture.JSON.readTree(d).get("choices").get(0).get("delta");
      if (delta.has("content")) {
        text.append(delta.get("content").asText());
      }
    }
    assertThat(text.toString()).isEqualTo(whole);
    // Unasked for usage, the stream has no choiceless chunk, as from OpenAI: the loop of OpenAI's
    // own examples (choices[0].delta of each chunk) reads it whole. The receipt rides on the
    // finishing chunk as an extension.
    for (String d : data.subList(0, data.size() - 1)) {
      assertThat(Fixture.JSON.readTree(d).get("choices")).as(d).hasSize(1);
    }
    JsonNode finish = Fixture.JSON.readTree(data.get(data.size() - 2));
    assertThat(finish.get("choices").get(0).get("finish_reason").asText()).isEqualTo("length");
    assertThat(finish.has("usage")).isFalse();
    Fixture.verifiedReceipt(finish.get("energy"));
  }

  @Test
  void chatStream_askingIncludeUsage_endsWithAUsageChunkWithoutChoices_asOpenAiSends()
      throws Exception {
    ObjectNode body = Fixture.chat("Stream me.");
    body.put("stream", true);
    body.putObject("stream_options").put("include_usage", true);
    List<String> data = f.post("/v1/chat/completions", body).data();
    assertThat(data.getLast()).isEqualTo("[DONE]");
    JsonNode finish = Fixture.JSON.readTree(data.get(data.size() - 3));
    assertThat(finish.get("choices").get(0).get("finish_reason").asText()).isEqualTo("length");
    assertThat(finish.has("energy")).isFalse();
    JsonNode usageChunk = Fixture.JSON.readTree(data.get(data.size() - 2));
    assertThat(usageChunk.get("choices")).isEmpty();
    Fixture.verifiedReceipt(usageChunk.get("usage").get("energy"));

    body.putObject("stream_options").put("include_usage", "yes");
    f.post("/v1/chat/completions", body).error(400, "invalid_field");
  }

  /**
   * Regression: a chat body's {@code stream_options} without {@code stream} true was served whole,
   * its options read for nothing, where OpenAI refuses it (400 naming {@code stream_options}).
   */
  @Test
  void chatStreamOptions_withoutStream_areRefusedAsOpenAiRefusesThem() throws Exception {
    for (String stream : new String[] {"absent", "null", "false"}) {
      ObjectNode body = Fixture.chat("Whole.");
      if (!stream.equals("absent")) {
        body.set("stream", Fixture.JSON.readTree(stream));
      }
      body.putObject("stream_options").put("include_usage", true);
      JsonNode e = f.post("/v1/chat/completions", body).error(400, "invalid_field");
      assertThat(e.get("param").asText()).isEqualTo("stream_options");
      assertThat(e.get("message").asText()).contains("stream true");
    }
    ObjectNode none = Fixture.chat("Whole.");
    none.putNull("stream_options");
    assertThat(f.post("/v1/chat/completions", none).status()).isEqualTo(200);
  }

  @Test
  void responses_plainAndStreamed_carryTheTextAndTheReceipt() throws Exception {
    ObjectNode body = Fixture.JSON.createObjectNode();
    body.put("model", "auto");
    body.put("instructions", "Be brief.");
    body.put("input", "What is a joule?");
    body.put("max_output_tokens", 5);
    body.putObject("metadata").put("fidelity_floor", "F3").put("joule_ceiling_uj", "500000");
    Fixture.Answer a = f.post("/v1/responses", body);
    assertThat(a.status()).as(a.body()).isEqualTo(200);
    JsonNode r = a.json();
    assertThat(r.get("object").asText()).isEqualTo("response");
    assertThat(r.get("model").asText()).isEqualTo("large");
    String text = r.get("output").get(0).get("content").get(0).get("text").asText();
    assertThat(text.split(" ")).hasSize(5);
    assertThat(r.get("usage").get("output_tokens").asLong()).isEqualTo(5);
    MeshReceipt receipt = Fixture.verifiedReceipt(r.get("usage").get("energy"));
    assertThat(receipt.requestId()).isEqualTo(GrantedServeRequest.derive(body).id());

    body.put("stream", true);
    Fixture.Answer s = f.post("/v1/responses", body);
    assertThat(s.status()).as(s.body()).isEqualTo(200);
    assertThat(s.body())
        .contains("event: response.created")
        .contains("event: response.output_text.delta");
    StringBuilder streamed = new StringBuilder();
    JsonNode last = null;
    for (String d : s.data()) {
      JsonNode e = Fixture.JSON.readTree(d);
      if (e.get("type").asText().equals("response.output_text.delta")) {
        streamed.append(e.get("delta").asText());
      }
      last = e;
    }
    assertThat(streamed.toString()).isEqualTo(text);
    assertThat(last.get("type").asText()).isIn("response.completed", "response.incomplete");
    Fixture.verifiedReceipt(last.get("response").get("usage").get("energy"));
  }

  @Test
  void models_listsEveryBackendWithFidelityRecipeAndWeights() {
    Fixture.Answer a = f.get("/v1/models");
    assertThat(a.status()).isEqualTo(200);
    JsonNode data = a.json().get("data");
    // Two backends, the reserved name, and the two recipes.
    assertThat(data).hasSize(5);
    assertThat(data.get(2).get("id").asText()).isEqualTo("auto");
    assertThat(data.get(3).get("id").asText()).isEqualTo("small-ref");
    assertThat(data.get(3).get("mesh").get("backends").get(0).asText()).isEqualTo("small");
    assertThat(data.get(0).get("id").asText()).isEqualTo("small");
    assertThat(data.get(0).get("mesh").get("fidelity").asText()).isEqualTo("F1");
    assertThat(data.get(1).get("mesh").get("recipe").asText()).isEqualTo("large-ref");
    assertThat(data.get(1).get("mesh").has("weights_digest")).isTrue();
    assertThat(data.get(1).get("mesh").get("deterministic").asBoolean()).isTrue();
  }

  @Test
  void model_namingABackendOrRecipe_restrictsTheRoute_andIsRecorded() throws Exception {
    for (String name : List.of("large", "large-ref")) {
      ObjectNode body = Fixture.chat("Pick large.");
      body.put("model", name);
      Fixture.Answer a = f.post("/v1/chat/completions", body);
      assertThat(a.status()).as(a.body()).isEqualTo(200);
      assertThat(a.json().get("model").asText()).isEqualTo("large");
      MeshReceipt receipt = Fixture.verifiedReceipt(a.json().get("usage").get("energy"));
      // small is cheaper and meets the floor: only the model rule keeps it out, and says so.
      assertThat(receipt.route()).contains("1 not permitted");
      JsonNode small = a.json().get("usage").get("energy").get("route").get(0);
      assertThat(small.toString()).contains("not the model the request names (" + name + ")");
      ObjectNode withCeiling = body.deepCopy();
      withCeiling.putObject("metadata").put("joule_ceiling_uj", "1000000");
      assertThat(receipt.requestId()).isEqualTo(GrantedServeRequest.derive(withCeiling).id());
    }
    ObjectNode auto = Fixture.chat("Pick any.");
    auto.put("model", "auto");
    assertThat(f.post("/v1/chat/completions", auto).json().get("model").asText())
        .isEqualTo("small");
  }

  @Test
  void model_unknown_is404ModelNotFound() {
    ObjectNode body = Fixture.chat("Who?");
    body.put("model", "gpt-4o-mini");
    JsonNode e = f.post("/v1/chat/completions", body).error(404, "model_not_found");
    assertThat(e.get("param").asText()).isEqualTo("model");
    assertThat(e.get("type").asText()).isEqualTo("invalid_request_error");
    assertThat(f.steward.head().nextSequence()).isZero();
  }

  /**
   * A JSON reply is rendered straight to bytes: text beyond ASCII (here echoed in an error) must
   * still arrive as UTF-8, unescaped (an emoji too, not as an escaped surrogate pair), and read
   * back as it was sent.
   */
  @Test
  void jsonReply_withTextBeyondAscii_isUtf8AndReadsBackUnchanged() {
    String model = "modèle-日本-\ud83d\ude00";
    ObjectNode body = Fixture.chat("Who?");
    body.put("model", model);
    Fixture.Answer a = f.post("/v1/chat/completions", body);
    JsonNode e = a.error(404, "model_not_found");
    assertThat(e.get("message").asText()).contains("`" + model + "`");
    assertThat(a.body()).contains(model);
  }

  @Test
  void jsonReply_echoingALoneSurrogate_escapesItAndReadsBackUnchanged() throws Exception {
    // JSON may escape half of a surrogate pair, which UTF-8 cannot encode. No refusal echoes one
    // any more (a model name holding one is refused 400 invalid_unicode, see PromptUnicodeTest),
    // but a whole reply that holds one escapes it again, so the body stays valid UTF-8 and reads
    // back what was put.
    ObjectNode reply = Fixture.JSON.createObjectNode().put("model", "m-\ud800-x");
    byte[] wire = JsonBytes.of(reply);
    String text =
        java.nio.charset.StandardCharsets.UTF_8
            .newDecoder()
            .decode(java.nio.ByteBuffer.wrap(wire))
            .toString();
    assertThat(text).containsIgnoringCase("m-\\ud800-x");
    assertThat(Fixture.JSON.readTree(wire).get("model").asText()).isEqualTo("m-\ud800-x");
    JsonNode e =
        f.post(
                "/v1/chat/completions",
                "{\"model\": \"m-\\ud800-x\", \"messages\": [{\"role\": \"user\", \"content\":"
                    + " \"Who?\"}]}")
            .error(400, "invalid_unicode");
    assertThat(e.get("param").asText()).isEqualTo("model");
  }

  @Test
  void steward_namesItsDidKey() {
    Fixture.Answer a = f.get("/v1/mesh/steward");
    assertThat(a.status()).isEqualTo(200);
    assertThat(a.json().get("did").asText()).isEqualTo(f.steward.identity().value());
    assertThat(a.json().get("grants_honoured").asBoolean()).isTrue();
  }

  @Test
  void metadata_acceptsDecimalStringsAndNumbersAlike() {
    ObjectNode strings = Fixture.chat("same");
    strings.putObject("metadata").put("fidelity_floor", "2").put("joule_ceiling_uj", "90000");
    ObjectNode numbers = Fixture.chat("same");
    numbers.putObject("metadata").put("fidelity_floor", 2).put("joule_ceiling_uj", 90000);
    String a =
        f.post("/v1/chat/completions", strings)
            .json()
            .get("usage")
            .get("energy")
            .get("receipt")
            .get("request_id")
            .asText();
    String b =
        f.post("/v1/chat/completions", numbers)
            .json()
            .get("usage")
            .get("energy")
            .get("receipt")
            .get("request_id")
            .asText();
    assertThat(a).isEqualTo(b);
  }

  @Test
  void metadata_refusesAnythingButADecimal() {
    for (String bad :
        List.of(
            "\"1e3\"",
            "\"-5\"",
            "\" 5\"",
            "\"5.0\"",
            "true",
            "5.5",
            "[5]",
            "\"0x10\"",
            "\"18446744073709551616\"")) {
      String body =
          "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"x\"}],"
              + "\"metadata\":{\"joule_ceiling_uj\":"
              + bad
              + "}}";
      JsonNode e = f.post("/v1/chat/completions", body).error(400, "invalid_metadata");
      assertThat(e.get("param").asText()).as(bad).isEqualTo("metadata.joule_ceiling_uj");
    }
    ObjectNode floor = Fixture.chat("x");
    floor.putObject("metadata").put("fidelity_floor", "F5");
    f.post("/v1/chat/completions", floor).error(400, "invalid_metadata");
  }

  /**
   * A hostile-client sweep found Jackson's own configuration in the refusals: the feature that
   * would have let NaN or a comment through ("enable `JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS` to
   * allow"), and the Java type and feature behind a trailing token. The fault and its place stay.
   */
  @Test
  void malformedBodies_nameTheFault_notTheParsersSettings() {
    String ok = "{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]";
    for (String bad :
        List.of(
            ok + ",\"max_tokens\":NaN}",
            ok + ",\"max_tokens\":-Infinity}",
            "/* c */" + ok + "}",
            ok + "}{}",
            ok + "} [1]",
            // Cut short: Jackson names where the open object or array began, after the name
            // of the setting that keeps the body out of the message.
            "{",
            "{\"messages\":[",
            ok)) {
      String message =
          f.post("/v1/chat/completions", bad).error(400, "not_json").get("message").asText();
      assertThat(message)
          .as(bad)
          .startsWith("the body is not valid JSON: ")
          .doesNotContain("`")
          .doesNotContain("Feature")
          .doesNotContain("jackson");
    }
    assertThat(
            f.post("/v1/chat/completions", ok + "}{}")
                .error(400, "not_json")
                .get("message")
                .asText())
        .isEqualTo(
            "the body is not valid JSON: Trailing token (of type START_OBJECT) found after value");
    assertThat(f.post("/v1/chat/completions", "{").error(400, "not_json").get("message").asText())
        .endsWith("(start marker at line: 1, column: 1)");
  }

  @Test
  void malformedBodies_areAnswered400InOpenAisErrorShape() {
    f.post("/v1/chat/completions", "not json").error(400, "not_json");
    f.post("/v1/chat/completions", "[1,2]").error(400, "not_json");
    f.post("/v1/chat/completions", "{\"messages\":[],\"messages\":[]}").error(400, "not_json");
    f.post("/v1/chat/completions", "{\"model\":\"m\"} trailing").error(400, "not_json");
    String deep = "{\"messages\":" + "[".repeat(5_000) + "]".repeat(5_000) + "}";
    assertThat(f.post("/v1/chat/completions", deep).error(400, "not_json").get("message").asText())
        .contains("nesting depth (1001) exceeds the maximum allowed (1000)")
        .doesNotContain("StreamReadConstraints");
    f.post("/v1/chat/completions", "{\"model\":\"m\"}").error(400, "invalid_field");
    f.post("/v1/chat/completions", "{\"messages\":[{\"role\":\"user\",\"content\":7}]}")
        .error(400, "invalid_field");
    f.post(
            "/v1/chat/completions",
            "{\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"image_url\"}]}]}")
        .error(400, "unsupported");
    f.post(
            "/v1/chat/completions",
            "{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}],\"stream\":\"yes\"}")
        .error(400, "invalid_field");
    f.post(
            "/v1/chat/completions",
            "{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}],\"max_tokens\":0}")
        .error(400, "integer_below_min_value");
    f.post("/v1/responses", "{\"input\":17}").error(400, "invalid_field");
    f.post(
            "/v1/chat/completions",
            "{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}],\"jcp_presentation\":\"zz\"}")
        .error(400, "malformed_presentation");
  }

  @Test
  void unknownPathsAndMethods_areAnsweredInOpenAisErrorShape() {
    f.get("/v1/nothing").error(404, "not_found");
    f.get("/v1/chat/completions").error(405, "method_not_allowed");
    f.post("/v1/models", "{}").error(405, "method_not_allowed");
  }

  /** Regression: a 405 named no {@code Allow}, which RFC 9110 §15.5.6 requires of it. */
  @Test
  void a405_namesTheMethodsItsPathAnswers() throws Exception {
    String[][] cases = {
      {"GET", "/v1/chat/completions", "POST"},
      {"POST", "/v1/models", "GET, HEAD"},
      {"DELETE", "/v1/mesh/checkpoint", "GET, HEAD, POST"},
      {"POST", "/readyz", "GET, HEAD"},
    };
    for (String[] c : cases) {
      java.net.http.HttpResponse<String> r =
          f.http.send(
              java.net.http.HttpRequest.newBuilder(f.uri(c[1]))
                  .header("Content-Type", "application/json")
                  .method(c[0], java.net.http.HttpRequest.BodyPublishers.ofString("{}"))
                  .build(),
              java.net.http.HttpResponse.BodyHandlers.ofString());
      assertThat(r.statusCode()).as(c[0] + " " + c[1]).isEqualTo(405);
      assertThat(r.headers().firstValue("allow")).as(c[0] + " " + c[1]).contains(c[2]);
    }
  }

  @Test
  void noAdmissibleBackend_is422WithEveryCandidate() {
    ObjectNode body = Fixture.chat("Write a novel.");
    body.putObject("metadata").put("fidelity_floor", "F4").put("joule_ceiling_uj", "10");
    JsonNode e = f.post("/v1/chat/completions", body).error(422, "no_admissible_backend");
    assertThat(e.get("candidates")).hasSize(2);
  }

  @Test
  void oversizedBody_is413() {
    try (Fixture small =
        new Fixture(
            org.meshjava.core.crypto.SigningKey.generate(), b -> {}, b -> b.maxBodyBytes(256))) {
      String big = Fixture.chat("x".repeat(300)).toString();
      small.post("/v1/chat/completions", big).error(413, "body_too_large");
      // Without a Content-Length, the limit holds while reading.
      Fixture.Answer chunked =
          small.send(
              HttpRequest.newBuilder(small.uri("/v1/chat/completions"))
                  .header("Content-Type", "application/json")
                  .POST(
                      HttpRequest.BodyPublishers.ofInputStream(
                          () -> new java.io.ByteArrayInputStream(big.getBytes()))));
      chunked.error(413, "body_too_large");
      assertThat(small.post("/v1/chat/completions", Fixture.chat("ok")).status()).isEqualTo(200);
    }
  }

  @Test
  void oversizedStreamedBody_ofManyChunks_is413InTheTypedShape() {
    try (Fixture small =
        new Fixture(
            org.meshjava.core.crypto.SigningKey.generate(), b -> {}, b -> b.maxBodyBytes(256))) {
      String big = Fixture.chat("x".repeat(200_000)).toString();
      Fixture.Answer chunked =
          small.send(
              HttpRequest.newBuilder(small.uri("/v1/chat/completions"))
                  .header("Content-Type", "application/json")
                  .POST(
                      HttpRequest.BodyPublishers.ofInputStream(
                          () -> new java.io.ByteArrayInputStream(big.getBytes()))));
      JsonNode e = chunked.error(413, "body_too_large");
      assertThat(e.get("message").asText()).contains("limit of 256 bytes");
    }
  }
}
