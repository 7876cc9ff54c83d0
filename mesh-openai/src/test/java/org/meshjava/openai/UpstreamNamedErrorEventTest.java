package org.meshjava.openai;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.meshjava.core.EngineException;

/**
 * An event an upstream names {@code error} ({@code event: error}) is its account of a failure
 * whatever its data holds, even none, as the Node SDK reads the name: it fails the serve, its data
 * going to the operator's log. It was read as an event without text, and a usage report after it
 * had the stream served.
 */
class UpstreamNamedErrorEventTest {
  private static final String ABC = UpstreamChoicesTest.event("\"index\":0,", "abc", "");

  private static final String SAID =
      "the upstream sent an error in its stream (its words go to the server's log, at most a line a minute)";

  @Test
  void anEventNamedError_failsTheStream_whateverItsData_itsWordsLogged() {
    for (String event :
        new String[] {
          "event: error\ndata: {\"message\":\"model overloaded\",\"type\":\"server_error\"}\n\n",
          "event:error\ndata: model overloaded\n\n",
          "data: {\"message\":\"model overloaded\"}\nevent: error\n\n",
          "event: error\ndata: {\"error\":null,\"choices\":[],\"note\":\"model overloaded\"}\n\n"
        }) {
      String log =
          Fixture.stderrOf(
              () ->
                  assertThatThrownBy(
                          () ->
                              UpstreamEventFieldsTest.streamed(
                                  ABC, event, UpstreamChoicesTest.USAGE_EVENT, "data: [DONE]\n\n"))
                      .as(event)
                      .isInstanceOf(EngineException.class)
                      .hasMessage(SAID));
      assertThat(log).as(event).contains(SAID + ": ").contains("model overloaded");
    }
  }

  @Test
  void anEventNamedErrorWithoutData_failsTheStreamToo() {
    assertThatThrownBy(
            () ->
                UpstreamEventFieldsTest.streamed(
                    ABC, "event: error\n\n", UpstreamChoicesTest.USAGE_EVENT, "data: [DONE]\n\n"))
        .isInstanceOf(EngineException.class)
        .hasMessage(SAID);
  }

  @Test
  void anEventOfAnotherName_orAnErrorNameLaterOverwritten_isRead() throws Exception {
    for (String named :
        new String[] {
          "event: message\n" + ABC,
          "event: errors\n" + ABC,
          "event: error\nevent: message\n" + ABC,
          "event: Error\n" + ABC
        }) {
      var r =
          UpstreamEventFieldsTest.streamed(
              named, UpstreamChoicesTest.USAGE_EVENT, "data: [DONE]\n\n");
      assertThat(UpstreamEventFieldsTest.text(r)).as(named).isEqualTo("abc");
    }
  }
}
