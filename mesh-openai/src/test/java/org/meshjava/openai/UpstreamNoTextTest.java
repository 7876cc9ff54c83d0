package org.meshjava.openai;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.meshjava.core.EngineException;

/**
 * A reply whose {@code choices[0].message} (or a stream's delta) carries a tool call, a function
 * call or a refusal is refused naming it, whole and streamed, whatever its finish reason and
 * whatever text is beside it; a finish reason this server does not pass on is named first, and only
 * a message with none of them and no text lacks its content.
 */
class UpstreamNoTextTest {
  private static final String USAGE = "{\"prompt_tokens\":3,\"completion_tokens\":2}";

  private static String reply(String message, String finish) {
    return "{\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\","
        + message
        + "}"
        + finish
        + "}],\"usage\":"
        + USAGE
        + "}";
  }

  private static final String TOOL_CALLS =
      "\"content\":null,\"tool_calls\":[{\"id\":\"x\",\"type\":\"function\",\"function\":"
          + "{\"name\":\"f\",\"arguments\":\"{}\"}}]";

  @Test
  void aToolCallWithItsFinishReason_isRefusedNamingTheReason() {
    assertThatThrownBy(
            () -> UpstreamChoicesTest.whole(reply(TOOL_CALLS, ",\"finish_reason\":\"tool_calls\"")))
        .isInstanceOf(EngineException.class)
        .hasMessage(
            "the upstream ended its reply with finish_reason tool_calls, which this server does"
                + " not pass on (its replies end stop or length)");
    assertThatThrownBy(
            () ->
                UpstreamChoicesTest.whole(
                    reply("\"content\":null", ",\"finish_reason\":\"content_filter\"")))
        .isInstanceOf(EngineException.class)
        .hasMessageContaining("finish_reason content_filter");
  }

  @Test
  void whatCameInPlaceOfTheContent_isNamed_whateverTheFinishReason() {
    String[][] cases = {
      {TOOL_CALLS, "tool_calls"},
      {"\"content\":null,\"function_call\":{\"name\":\"f\",\"arguments\":\"{}\"}", "function_call"},
      {"\"refusal\":\"I can't help with that.\"", "refusal"},
      {"\"content\":null,\"refusal\":null,\"tool_calls\":[{\"id\":\"x\"}]", "tool_calls"},
    };
    for (String[] c : cases) {
      for (String finish : new String[] {"", ",\"finish_reason\":\"stop\""}) {
        assertThatThrownBy(() -> UpstreamChoicesTest.whole(reply(c[0], finish)))
            .as(c[0] + finish)
            .isInstanceOf(EngineException.class)
            .hasMessage(
                "the upstream sent choices[0].message."
                    + c[1]
                    + ", which this server does not pass on (its replies are text)");
      }
    }
  }

  @Test
  void aStreamedToolCallOrRefusal_failsNamingIt_asTheWholeReplyDoes() {
    String[][] cases = {
      {
        "\"content\":null,\"tool_calls\":[{\"index\":0,\"id\":\"x\",\"type\":\"function\","
            + "\"function\":{\"name\":\"f\",\"arguments\":\"\"}}]",
        "tool_calls"
      },
      {"\"function_call\":{\"name\":\"f\",\"arguments\":\"\"}", "function_call"},
      {"\"content\":null,\"refusal\":\"I can't help with that.\"", "refusal"},
    };
    for (String[] c : cases) {
      String event =
          "data: {\"choices\":[{\"index\":0,\"delta\":{" + c[0] + "},\"finish_reason\":null}]}\n\n";
      String stop =
          "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n";
      assertThatThrownBy(
              () ->
                  UpstreamEventFieldsTest.streamed(
                      event, stop, UpstreamChoicesTest.USAGE_EVENT, "data: [DONE]\n\n"))
          .as(c[0])
          .isInstanceOf(EngineException.class)
          .hasMessage(
              "the upstream sent choices[0].delta."
                  + c[1]
                  + ", which this server does not pass on (its replies are text)");
    }
  }

  @Test
  void streamedTextBesideNoToolCall_isServed() throws Exception {
    var r =
        UpstreamEventFieldsTest.streamed(
            "data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\","
                + "\"refusal\":null,\"tool_calls\":[]}}]}\n\n",
            "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"abc\",\"refusal\":\"\","
                + "\"function_call\":null}}]}\n\n",
            UpstreamChoicesTest.USAGE_EVENT,
            "data: [DONE]\n\n");
    assertThat(UpstreamEventFieldsTest.text(r)).isEqualTo("abc");
  }

  @Test
  void aMessageWithNothingInPlaceOfItsContent_lacksItsContent() {
    for (String message :
        new String[] {
          "\"content\":null",
          "\"content\":null,\"refusal\":null,\"tool_calls\":[],\"function_call\":null",
          "\"content\":null,\"refusal\":\"\",\"tool_calls\":{}",
          "\"content\":7",
          "\"content\":{\"text\":\"x\"}"
        }) {
      assertThatThrownBy(() -> UpstreamChoicesTest.whole(reply(message, "")))
          .as(message)
          .isInstanceOf(EngineException.class)
          .hasMessage("the upstream sent no choices[0].message.content");
    }
  }

  @Test
  void aToolCallBesideText_failsToo_wholeAndStreamed() {
    String call = "\"tool_calls\":[{\"id\":\"x\",\"type\":\"function\"}]";
    assertThatThrownBy(
            () -> UpstreamChoicesTest.whole(reply("\"content\":\"Let me look.\"," + call, "")))
        .isInstanceOf(EngineException.class)
        .hasMessageStartingWith("the upstream sent choices[0].message.tool_calls, ");
    assertThatThrownBy(
            () ->
                UpstreamEventFieldsTest.streamed(
                    "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Let me look.\","
                        + call
                        + "}}]}\n\n",
                    UpstreamChoicesTest.USAGE_EVENT,
                    "data: [DONE]\n\n"))
        .isInstanceOf(EngineException.class)
        .hasMessageStartingWith("the upstream sent choices[0].delta.tool_calls, ");
  }

  @Test
  void textBesideAnEmptyOrNullToolCall_isServed() throws Exception {
    var r =
        UpstreamChoicesTest.whole(
            reply("\"content\":\"abc\",\"refusal\":null,\"tool_calls\":[]", ""));
    assertThat(UpstreamEventFieldsTest.text(r)).isEqualTo("abc");
  }
}
