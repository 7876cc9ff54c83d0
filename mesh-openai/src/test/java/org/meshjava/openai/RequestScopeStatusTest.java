package org.meshjava.openai;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
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
    RequestScope scope = recording(seen);
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

  /**
   * Regression: a reply that threw past {@code write} (here the JVM failing in the engine, which
   * the steward passes once the serve is settled) was answered 500 by Jetty's error handler, and
   * the scope heard no status at all: the request was timed and traced without one.
   */
  @Test
  void aReplyThatThrowsBeforeItsStatus_isScopedAs500() throws Exception {
    List<String> seen = new CopyOnWriteArrayList<>();
    try (Fixture f =
        new Fixture(
            null,
            b -> b.backend(ThrowingEngine.of(new OutOfMemoryError("Java heap space"))),
            b -> b.requestScope(recording(seen)))) {
      f.post("/v1/chat/completions", Fixture.chat("Run out of memory."))
          .error(500, "internal_error");
      assertThat(seen).containsExactly("/v1/chat/completions 500");
    }
  }

  /**
   * Regression: a body that missed its deadline was answered 408 outside the request scope, so an
   * application's timers and traces never saw it (nor a 429 for a server holding as many bodies as
   * it may, answered the same way).
   */
  @Test
  void aBodyThatMissesItsDeadline_isScopedAs408() throws Exception {
    List<String> seen = new CopyOnWriteArrayList<>();
    try (Fixture f =
        new Fixture(
            null,
            b -> {},
            b -> b.bodyDeadline(Duration.ofMillis(200)).requestScope(recording(seen)))) {
      try (Socket s = new Socket("127.0.0.1", f.server.port())) {
        s.getOutputStream()
            .write(
                ("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n"
                        + "Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{")
                    .getBytes(StandardCharsets.US_ASCII));
        s.getOutputStream().flush();
        String reply = new String(s.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
        assertThat(reply).startsWith("HTTP/1.1 408 ");
      }
      assertThat(seen).containsExactly("/v1/chat/completions 408");
    }
  }

  private static RequestScope recording(List<String> seen) {
    return (method, path, header) ->
        new RequestScope.Opened() {
          @Override
          public void status(int status) {
            seen.add(path + " " + status);
          }

          @Override
          public void close() {}
        };
  }
}
