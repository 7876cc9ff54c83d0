package org.meshjava.openai;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * The request scope hears the status the client is sent, not the one the reply was decided with: a
 * streamed request whose engine fails before its first token is answered by an error reply in the
 * stream's place (StreamedRefusalTest), and its metrics and trace must say so, not 200.
 */
class RequestScopeStatusTest {
  @Test
  void aStreamAnsweredByAnErrorInItsPlace_isScopedWithTheErrorsStatus() throws Exception {
    List<String> seen = new CopyOnWriteArrayList<>();
    RequestScope scope =
        (method, path, header) ->
            new RequestScope.Opened() {
              @Override
              public void status(int status) {
                seen.add(path + " " + status);
              }

              @Override
              public void close() {}
            };
    try (Fixture f =
        new Fixture(
            null,
            b -> b.backend(ThrowingEngine.of(new IllegalStateException("the device went away"))),
            b -> b.requestScope(scope))) {
      ObjectNode chat = Fixture.chat("Fail before the first token.");
      chat.put("stream", true);
      f.post("/v1/chat/completions", chat).error(502, "engine_failed");
      ObjectNode responses = Fixture.JSON.createObjectNode();
      responses.put("input", "Fail before the first token.");
      responses.put("stream", true);
      f.post("/v1/responses", responses).error(502, "engine_failed");
      assertThat(seen).containsExactly("/v1/chat/completions 502", "/v1/responses 502");
    }
  }
}
