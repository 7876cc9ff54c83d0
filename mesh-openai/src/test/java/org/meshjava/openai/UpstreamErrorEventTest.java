package org.meshjava.openai;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.meshjava.core.EngineException;

/**
 * An upstream that reports an error inside a 200: an event {@code data: {"error": {...}}} in its
 * stream (vLLM and OpenAI send one when a generation fails after the status went out), or a whole
 * reply that is an error object. The stream's was skipped as an event without text, and the serve
 * failed "the upstream ended its stream without a usage report (stream_options.include_usage)",
 * sending its operator after a setting the upstream honours; the whole reply's said it had no
 * content. Each now fails saying the upstream sent an error, whose own words go to the operator's
 * log only, as a refusal's do. An error beside a reply's parts fails too, though the fast reader
 * ({@link PlainReply}) found them all; an error that is null is none.
 */
class UpstreamErrorEventTest {
  private static final String ERROR =
      "{\"error\":{\"message\":\"CUDA out of memory at 10.0.0.7\",\"type\":\"InternalServerError\","
          + "\"code\":500}}";

  @Test
  void anErrorEventInAStream_failsSayingSo_itsWordsLoggedNotShown() throws Exception {
    String events = UpstreamCutWordsTest.DELTA + "data: " + ERROR + "\n\ndata: [DONE]\n\n";
    try (ScriptedUpstream up = new ScriptedUpstream(UpstreamWireTest.answering(200, "", events))) {
      ScriptedUpstream.Asked asked = ScriptedUpstream.Asked.chat("Fail.", 8);
      AtomicReference<Throwable> failure = new AtomicReference<>();
      String log =
          Fixture.stderrOf(
              () -> {
                try {
                  Fixture.remote(up.base()).serve(asked.request(), asked.payload(), t -> true);
                } catch (EngineException e) {
                  failure.set(e);
                }
              });
      assertThat(failure.get())
          .isInstanceOf(EngineException.class)
          .hasMessage(
              "the upstream sent an error in its stream (its words go to the server's log, at most a line a minute)");
      assertThat(log).contains("reply failed: the upstream sent an error in its stream", "CUDA");
    }
  }

  @Test
  void aWholeReplyThatIsAnErrorObject_failsSayingSo() throws Exception {
    try (ScriptedUpstream up = new ScriptedUpstream(UpstreamWireTest.answering(200, ERROR))) {
      ScriptedUpstream.Asked asked = ScriptedUpstream.Asked.chat("Fail.", 8);
      assertThatThrownBy(() -> Fixture.remote(up.base()).serve(asked.request(), asked.payload()))
          .isInstanceOf(EngineException.class)
          .hasMessage(
              "the upstream sent an error in its reply (its words go to the server's log, at most a line a minute)")
          .hasMessageNotContaining("CUDA");
    }
  }

  @Test
  void anErrorBesideAReplysParts_failsAsAWholeErrorDoes() throws Exception {
    String reply =
        "{\"choices\":[{\"index\":0,\"message\":{\"content\":\"ab\"}}],"
            + "\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":1},"
            + ERROR.substring(1);
    try (ScriptedUpstream up = new ScriptedUpstream(UpstreamWireTest.answering(200, reply))) {
      ScriptedUpstream.Asked asked = ScriptedUpstream.Asked.chat("Fail.", 8);
      assertThatThrownBy(() -> Fixture.remote(up.base()).serve(asked.request(), asked.payload()))
          .isInstanceOf(EngineException.class)
          .hasMessage(
              "the upstream sent an error in its reply (its words go to the server's log, at most a line a minute)");
    }
  }

  /**
   * Regression: an error that is a number past a double's range ({@code 1e999}, an infinity to both
   * SDKs, so an error) threw from the check, and the client read the JDK's words "Infinite or NaN";
   * it fails as any error does now. One that underflows to zero is none, as 0 is.
   */
  @Test
  void anErrorThatIsANumberPastADouble_failsAsAnError_andOneThatIsZeroIsNone() throws Exception {
    for (String error : new String[] {"1e999", "-1e999"}) {
      String reply =
          "{\"error\":"
              + error
              + ",\"choices\":[{\"index\":0,\"message\":{\"content\":\"ab\"}}],"
              + "\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":1}}";
      try (ScriptedUpstream up = new ScriptedUpstream(UpstreamWireTest.answering(200, reply))) {
        ScriptedUpstream.Asked asked = ScriptedUpstream.Asked.chat("Fail.", 8);
        assertThatThrownBy(() -> Fixture.remote(up.base()).serve(asked.request(), asked.payload()))
            .as(error)
            .isInstanceOf(EngineException.class)
            .hasMessage(
                "the upstream sent an error in its reply (its words go to the server's log, at most a line a minute)");
      }
    }
    assertThat(UpstreamEngine.noError(Fixture.JSON.readTree("1e-999"))).isTrue();
    assertThat(UpstreamEngine.noError(Fixture.JSON.readTree("-0.0"))).isTrue();
    assertThat(UpstreamEngine.noError(Fixture.JSON.readTree("1" + "0".repeat(400)))).isFalse();
  }

  @Test
  void anErrorThatIsNull_isNoError_wholeAndStreamed() throws Exception {
    String reply =
        "{\"error\":null,\"choices\":[{\"index\":0,\"message\":{\"content\":\"ab\"}}],"
            + "\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":1}}";
    try (ScriptedUpstream up = new ScriptedUpstream(UpstreamWireTest.answering(200, reply))) {
      ScriptedUpstream.Asked asked = ScriptedUpstream.Asked.chat("Ok.", 8);
      assertThat(
              Fixture.remote(up.base())
                  .serve(asked.request(), asked.payload())
                  .outcome()
                  .tokensOut())
          .isEqualTo(1);
    }
    String events =
        "data: {\"error\":null,\"choices\":[{\"index\":0,\"delta\":{\"content\":\"ab\"}}]}\n\n"
            + "data: {\"error\":null,\"choices\":[],"
            + "\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":1}}\n\ndata: [DONE]\n\n";
    try (ScriptedUpstream up = new ScriptedUpstream(UpstreamWireTest.answering(200, "", events))) {
      ScriptedUpstream.Asked asked = ScriptedUpstream.Asked.chat("Ok.", 8);
      assertThat(
              Fixture.remote(up.base())
                  .serve(asked.request(), asked.payload(), t -> true)
                  .outcome()
                  .tokensOut())
          .isEqualTo(1);
    }
  }
}
