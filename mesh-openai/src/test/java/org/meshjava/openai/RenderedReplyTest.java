package org.meshjava.openai;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * A whole reply is rendered before its status is set: one whose writer throws (our bug, met after
 * the serve decided its 200) is answered 500 {@code internal_error} naming the request, not sent to
 * Jetty with the 200 already set.
 */
class RenderedReplyTest {
  @Test
  void aReplyWhoseWriterThrows_isThe500InternalError_namingTheRequest_logged() {
    for (WrittenJson.Writing broken :
        new WrittenJson.Writing[] {
          (g, s) -> {
            throw new IOException("the receipt's writer failed");
          },
          (g, s) -> {
            g.writeStartObject();
            g.writeStringField("half", "written");
            throw new IllegalStateException("the receipt's writer failed");
          }
        }) {
      Rendered rendered = Rendered.of(broken, "req_broken");
      RenderedReply r = rendered.reply();
      String log = rendered.log();
      assertThat(r.reply().status()).isEqualTo(500);
      assertThat(r.reply().retry()).isEqualTo(Reply.Retry.FUTILE);
      assertThat(new String(r.bytes(), StandardCharsets.UTF_8))
          .contains("\"code\":\"internal_error\"", "req_broken")
          .doesNotContain("half");
      assertThat(log).contains("req_broken", "the receipt's writer failed");
    }
  }

  /** A 200 reply whose writer is {@code broken}, rendered, and what rendering it logged. */
  private record Rendered(RenderedReply reply, String log) {
    static Rendered of(WrittenJson.Writing broken, String requestId) {
      AtomicReference<RenderedReply> out = new AtomicReference<>();
      String log =
          Fixture.stderrOf(
              () ->
                  out.set(
                      RenderedReply.of(new Reply.Json(200, WrittenJson.node(broken)), requestId)));
      return new Rendered(out.get(), log);
    }
  }

  /**
   * Logging the failure printed its trace: a throwable whose words throw threw out of the catch
   * that answers the 500, in place of the answer.
   */
  @Test
  void aWriterThrowingAnUnprintableThrowable_isStillThe500InternalError_logged() {
    Rendered rendered =
        Rendered.of(
            (g, s) -> {
              throw new UnprintableException();
            },
            "req_unprintable");
    RenderedReply r = rendered.reply();
    String log = rendered.log();
    assertThat(r.reply().status()).isEqualTo(500);
    assertThat(new String(r.bytes(), StandardCharsets.UTF_8))
        .contains("\"code\":\"internal_error\"", "req_unprintable");
    assertThat(log).contains("req_unprintable", "which cannot be printed");
  }

  @Test
  void aReplyThatRenders_isItself() {
    Reply.Json json =
        new Reply.Json(201, JsonNodeFactory.instance.objectNode().put("a", "\uD83D\uDE00"));
    RenderedReply r = RenderedReply.of(json, "req_fine");
    assertThat(r.reply()).isSameAs(json);
    assertThat(r.bytes()).isEqualTo(JsonBytes.of(json.body()));
  }
}
