package org.meshjava.openai;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Requests as the official OpenAI Python SDK (openai 3.22.1) puts them on the wire, byte for byte,
 * captured by mesh-openai/sdk-check (its {@code --dump-requests}), with the headers it sends that a
 * Java client may set. No Python is needed to run these.
 */
class PythonSdkWireTest {
  private final Fixture f = new Fixture();

  @AfterEach
  void close() {
    f.close();
  }

  /**
   * {@code client.responses.create(model="auto", input=..., max_output_tokens=8, metadata=...)}.
   */
  private static final String RESPONSES =
      "{\"input\":\"Hello responses.\",\"max_output_tokens\":8,\"metadata\":"
          + "{\"fidelity_floor\":\"F1\",\"joule_ceiling_uj\":\"200000\"},\"model\":\"auto\"}";

  /** The same with {@code stream=True}, which the SDK writes last. */
  private static final String RESPONSES_STREAMED =
      RESPONSES.substring(0, RESPONSES.length() - 1) + ",\"stream\":true}";

  private Fixture.Answer sendAsPython(String path, String body) {
    HttpRequest.Builder r =
        HttpRequest.newBuilder(f.uri(path))
            .header("accept-encoding", "gzip, deflate")
            .header("authorization", "Bearer unused")
            .header("accept", "application/json")
            .header("content-type", "application/json")
            .header("user-agent", "OpenAI/Python 3.22.1")
            .header("x-stainless-lang", "python")
            .header("x-stainless-package-version", "3.22.1")
            .header("x-stainless-os", "Linux")
            .header("x-stainless-arch", "x64")
            .header("x-stainless-runtime", "CPython")
            .header("x-stainless-runtime-version", "3.11.7")
            .header("x-stainless-async", "false")
            .header("x-stainless-retry-count", "0")
            .header("x-stainless-read-timeout", "600")
            .POST(HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8));
    return f.send(r);
  }

  private static List<JsonNode> events(Fixture.Answer streamed) throws IOException {
    List<JsonNode> out = new ArrayList<>();
    for (String d : streamed.data()) {
      out.add(Fixture.JSON.readTree(d));
    }
    return out;
  }

  @Test
  void aResponseCutByMaxOutputTokens_marksItsMessageIncompleteToo() {
    Fixture.Answer a = sendAsPython("/v1/responses", RESPONSES);
    assertThat(a.status()).as(a.body()).isEqualTo(200);
    JsonNode r = a.json();
    assertThat(r.get("status").asText()).isEqualTo("incomplete");
    assertThat(r.at("/incomplete_details/reason").asText()).isEqualTo("max_output_tokens");
    // The message holds the cut text: it is not a completed message either, as OpenAI answers.
    assertThat(r.at("/output/0/type").asText()).isEqualTo("message");
    assertThat(r.at("/output/0/status").asText()).isEqualTo("incomplete");
  }

  @Test
  void aStreamedResponseCutByMaxOutputTokens_endsItsMessageIncomplete() throws IOException {
    Fixture.Answer s = sendAsPython("/v1/responses", RESPONSES_STREAMED);
    assertThat(s.status()).as(s.body()).isEqualTo(200);
    List<JsonNode> events = events(s);
    JsonNode added = events.get(1);
    assertThat(added.get("type").asText()).isEqualTo("response.output_item.added");
    assertThat(added.at("/item/status").asText()).isEqualTo("in_progress");
    JsonNode itemDone = events.get(events.size() - 2);
    assertThat(itemDone.get("type").asText()).isEqualTo("response.output_item.done");
    assertThat(itemDone.at("/item/status").asText()).isEqualTo("incomplete");
    JsonNode last = events.getLast();
    assertThat(last.get("type").asText()).isEqualTo("response.incomplete");
    assertThat(last.at("/response/output/0/status").asText()).isEqualTo("incomplete");
  }
}
