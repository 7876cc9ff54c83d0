package org.meshjava.openai;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;

/**
 * A Responses request with {@code store: true} (or none, OpenAI's default being to store) was
 * served with a reply that said nothing of storage, so a client had no way to learn that {@code GET
 * /v1/responses/{id}} would then answer 404: the reply says {@code store: false}.
 */
class ResponsesStoreTest {
  private static ObjectNode ask(Boolean store, boolean stream) {
    ObjectNode body = Fixture.JSON.createObjectNode();
    body.put("model", "small");
    body.put("input", "Keep this.");
    body.put("max_output_tokens", 4);
    if (store != null) {
      body.put("store", store);
    }
    if (stream) {
      body.put("stream", true);
    }
    return body;
  }

  @Test
  void response_saysItIsNotStored_whateverTheRequestAsked_andRetrieveFindsNothing()
      throws Exception {
    try (Fixture f = new Fixture()) {
      for (Boolean store : new Boolean[] {null, true, false}) {
        Fixture.Answer a = f.post("/v1/responses", ask(store, false));
        assertThat(a.status()).as(a.body()).isEqualTo(200);
        JsonNode r = a.json();
        assertThat(r.path("store").isBoolean()).as(a.body()).isTrue();
        assertThat(r.get("store").asBoolean()).isFalse();
        f.get("/v1/responses/" + r.get("id").asText()).error(404, "not_found");

        Fixture.Answer s = f.post("/v1/responses", ask(store, true));
        JsonNode done = null;
        for (String data : s.data()) {
          JsonNode event = Fixture.JSON.readTree(data);
          if (event.path("type").asText().equals("response.completed")
              || event.path("type").asText().equals("response.incomplete")) {
            done = event.get("response");
          }
        }
        assertThat(done).as(s.body()).isNotNull();
        assertThat(done.path("store").isBoolean()).as(s.body()).isTrue();
        assertThat(done.get("store").asBoolean()).isFalse();
      }
    }
  }
}
