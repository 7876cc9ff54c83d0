package org.meshjava.openai;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.meshjava.core.EngineException;
import org.meshjava.core.EngineResult;

/**
 * An upstream's finish reason that says its text is no plain answer ({@code content_filter}, {@code
 * tool_calls}, {@code function_call}) fails the serve, whole and streamed, where it was served as a
 * plain {@code stop} (or {@code length}) read from the counts; any other reason is read from the
 * counts as before.
 */
class UpstreamFinishReasonTest {
  @Test
  void aFinishReasonThatIsNoPlainAnswer_failsWholeAndStreamed() throws Exception {
    for (String reason : new String[] {"content_filter", "tool_calls", "function_call", "error"}) {
      String finish = ",\"finish_reason\":\"" + reason + "\"";
      assertThatThrownBy(
              () ->
                  UpstreamChoicesTest.whole(
                      UpstreamChoicesTest.reply(
                          UpstreamChoicesTest.choice("\"index\":0,", "ab", finish))))
          .as(reason)
          .isInstanceOf(EngineException.class)
          .hasMessage(
              "the upstream ended its reply with finish_reason "
                  + reason
                  + ", which this server does not pass on (its replies end stop or length)");
      String last = "data: {\"choices\":[{\"index\":0,\"delta\":{}" + finish + "}]}\n\n";
      assertThatThrownBy(
              () ->
                  UpstreamEventFieldsTest.streamed(
                      UpstreamChoicesTest.event("\"index\":0,", "ab", ""),
                      last,
                      UpstreamChoicesTest.USAGE_EVENT))
          .as(reason)
          .isInstanceOf(EngineException.class)
          .hasMessage(
              "the upstream ended its stream with finish_reason "
                  + reason
                  + ", which this server does not pass on (its replies end stop or length)");
    }
  }

  @Test
  void theOtherFinishReasons_areServedFromTheCounts_wholeAndStreamed() throws Exception {
    for (String finish :
        new String[] {
          "",
          ",\"finish_reason\":null",
          ",\"finish_reason\":\"stop\"",
          ",\"finish_reason\":\"length\"",
          ",\"finish_reason\":\"eos_token\""
        }) {
      EngineResult r =
          UpstreamChoicesTest.whole(
              UpstreamChoicesTest.reply(UpstreamChoicesTest.choice("\"index\":0,", "abc", finish)));
      assertThat(UpstreamEventFieldsTest.text(r)).as(finish).isEqualTo("abc");
      assertThat(r.outcome().tokensOut()).isEqualTo(2);
      EngineResult s =
          UpstreamEventFieldsTest.streamed(
              UpstreamChoicesTest.event("\"index\":0,", "abc", ""),
              "data: {\"choices\":[{\"index\":0,\"delta\":{}" + finish + "}]}\n\n",
              UpstreamChoicesTest.USAGE_EVENT);
      assertThat(UpstreamEventFieldsTest.text(s)).as(finish).isEqualTo("abc");
      assertThat(s.outcome().tokensOut()).isEqualTo(2);
    }
  }

  @Test
  void aChatOverAFilteringUpstream_isAnswered502_namingTheReason() throws Exception {
    String filtered =
        UpstreamChoicesTest.reply(
            UpstreamChoicesTest.choice(
                "\"index\":0,", "ab", ",\"finish_reason\":\"content_filter\""));
    try (ScriptedUpstream up = new ScriptedUpstream(UpstreamWireTest.answering(200, filtered))) {
      assertThat(UpstreamReplyShapesTest.engineFailed(up.base()))
          .contains("finish_reason content_filter");
    }
  }
}
