package org.meshjava.openai;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.meshjava.core.EngineException;

/**
 * llama.cpp's server, when a streamed generation fails (a prompt past its context, above all),
 * writes its error as an {@code error:} field line, a field the event-stream format does not know,
 * in place of any event, then ends the stream: the serve fails saying the upstream sent an error,
 * its words in the server's log, not that it sent no events or ignored {@code stream_options}.
 */
class UpstreamErrorFieldTest {
  private static final String CONTEXT =
      "error: {\"code\":400,\"message\":\"the request exceeds the available context size, try"
          + " increasing it\",\"type\":\"exceed_context_size_error\"}\n\n";

  private static final String SAID =
      "the upstream sent an error in its stream (its words go to the server's log, at most a line a minute)";

  @Test
  void anErrorFieldInPlaceOfEvents_failsSayingTheUpstreamSentAnError_itsWordsLogged() {
    String log =
        Fixture.stderrOf(
            () ->
                assertThatThrownBy(() -> UpstreamEventFieldsTest.streamed(CONTEXT))
                    .isInstanceOf(EngineException.class)
                    .hasMessage(SAID));
    assertThat(log).contains("exceeds the available context size");
  }

  @Test
  void anErrorFieldAfterADelta_failsAlike() {
    assertThatThrownBy(
            () ->
                UpstreamEventFieldsTest.streamed(
                    UpstreamChoicesTest.event("\"index\":0,", "ab", ""), CONTEXT))
        .isInstanceOf(EngineException.class)
        .hasMessage(SAID);
  }

  @Test
  void anErrorFieldOfAStreamThatEndsWell_isNoPartOfIt_asTheSdksReadIt() throws Exception {
    var r =
        UpstreamEventFieldsTest.streamed(
            "error:\n\n",
            CONTEXT,
            UpstreamChoicesTest.event("\"index\":0,", "abc", ""),
            UpstreamChoicesTest.USAGE_EVENT,
            "data: [DONE]\n\n");
    assertThat(UpstreamEventFieldsTest.text(r)).isEqualTo("abc");
  }
}
