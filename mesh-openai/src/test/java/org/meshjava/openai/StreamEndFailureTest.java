package org.meshjava.openai;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.meshjava.energy.EstimatorMeter;
import org.meshjava.engine.ReferenceEngine;
import org.meshjava.steward.Steward;

/**
 * A stream that has sent text and then fails at its closing events (the event carrying the receipt
 * failing to render or to go out) ends as every other mid-stream failure does: an {@code
 * internal_error} event, then the close, and no {@code [DONE]} or {@code response.completed} that
 * would tell the client the answer arrived whole.
 */
class StreamEndFailureTest {
  private static Steward steward;
  private static Endpoints endpoints;

  @BeforeAll
  static void build() {
    steward =
        Steward.ephemeral()
            .meter(new EstimatorMeter())
            .backend(ReferenceEngine.builder().name("ref").build())
            .build();
    endpoints = new Endpoints(steward, 1_000_000, 4);
  }

  @AfterAll
  static void close() {
    steward.close();
  }

  /**
   * Records each event's wire text, and throws what {@code failure} gives at the first event whose
   * wire holds {@code at}, as a render of it that fails would.
   */
  private static final class FailingAt implements Reply.Channel {
    final List<String> wire = new ArrayList<>();
    private final String at;
    private final Supplier<Throwable> failure;
    private boolean failed;

    FailingAt(String at, Supplier<Throwable> failure) {
      this.at = at;
      this.failure = failure;
    }

    @Override
    public boolean send(Reply.Event event) {
      ByteBuffer b = event.wire();
      byte[] bytes = new byte[b.remaining()];
      b.get(bytes);
      String text = new String(bytes, StandardCharsets.UTF_8);
      if (!failed && text.contains(at)) {
        failed = true;
        Throwable t = failure.get();
        if (t instanceof RuntimeException r) {
          throw r;
        }
        throw (Error) t;
      }
      wire.add(text);
      return true;
    }

    @Override
    public boolean started() {
      return !wire.isEmpty();
    }
  }

  /**
   * Regression: an {@code Error} other than the JVM failing (a class whose initialisation fails
   * when the receipt is first rendered, an assertion) passed the stream's catch, which took our own
   * RuntimeException and a VirtualMachineError only, and Jetty cut the stream with no error event.
   * A RuntimeException there held.
   */
  @ParameterizedTest
  @CsvSource({
    "/v1/chat/completions, \"energy\", error",
    "/v1/chat/completions, \"energy\", runtime",
    "/v1/chat/completions, [DONE], error",
    "/v1/responses, \"energy\", error",
    "/v1/responses, \"energy\", runtime",
  })
  void aFailureAtTheClosingEvents_endsWithAnInternalErrorEvent(
      String path, String at, String kind) {
    FailingAt channel =
        new FailingAt(
            at,
            () ->
                kind.equals("error")
                    ? new ExceptionInInitializerError("the receipt's writer failed to load")
                    : new IllegalStateException("the receipt's writer failed"));
    String body =
        path.equals("/v1/responses")
            ? "{\"input\":\"Say something.\",\"stream\":true,\"max_output_tokens\":4}"
            : "{\"messages\":[{\"role\":\"user\",\"content\":\"Say something.\"}],"
                + "\"stream\":true,\"max_tokens\":4}";
    Reply reply = endpoints.handle("POST", path, body.getBytes(StandardCharsets.UTF_8));
    assertThat(reply).isInstanceOf(Reply.Streamed.class);

    String[] log = new String[1];
    Optional<Reply>[] instead = new Optional[1];
    log[0] = Fixture.stderrOf(() -> instead[0] = ((Reply.Streamed) reply).producer().run(channel));

    assertThat(instead[0]).as("the stream had started").isEmpty();
    String last = channel.wire.getLast();
    assertThat(last).as(String.join("", channel.wire)).contains("\"code\":\"internal_error\"");
    assertThat(String.join("", channel.wire))
        .doesNotContain("[DONE]")
        .doesNotContain("response.completed")
        .doesNotContain("response.incomplete")
        .doesNotContain("failed to load")
        .doesNotContain("java.lang");
    assertThat(log[0]).contains("internal error streaming");
  }
}
