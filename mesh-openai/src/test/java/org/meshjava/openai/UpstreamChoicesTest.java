package org.meshjava.openai;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.meshjava.core.EngineException;
import org.meshjava.core.EngineResult;

/**
 * The one choice a request asks of an upstream, read the same whole and streamed: a whole reply is
 * read at {@code choices[0]} by position, so a second choice, or a choice whose index is not 0,
 * fails either way, where a stream merged a second choice's deltas into the text and a whole reply
 * dropped it.
 */
class UpstreamChoicesTest {
  private static final String USAGE = "{\"prompt_tokens\":3,\"completion_tokens\":2}";
  static final String USAGE_EVENT = "data: {\"choices\":[],\"usage\":" + USAGE + "}\n\n";

  static EngineResult whole(String reply) throws Exception {
    try (ScriptedUpstream up = new ScriptedUpstream(UpstreamWireTest.answering(200, reply))) {
      ScriptedUpstream.Asked asked = ScriptedUpstream.Asked.chat("Choices.", 8);
      return Fixture.remote(up.base()).serve(asked.request(), asked.payload());
    }
  }

  static String choice(String index, String content, String finish) {
    return "{"
        + index
        + "\"message\":{\"role\":\"assistant\",\"content\":\""
        + content
        + "\"}"
        + finish
        + "}";
  }

  static String event(String index, String content, String finish) {
    return "data: {\"choices\":[{"
        + index
        + "\"delta\":{\"content\":\""
        + content
        + "\"}"
        + finish
        + "}]}\n\n";
  }

  static String reply(String... choices) {
    return "{\"choices\":[" + String.join(",", choices) + "],\"usage\":" + USAGE + "}";
  }

  @Test
  void aSecondChoice_failsWholeAndStreamed() throws Exception {
    assertThatThrownBy(
            () -> whole(reply(choice("\"index\":0,", "ab", ""), choice("\"index\":1,", "cd", ""))))
        .isInstanceOf(EngineException.class)
        .hasMessage("the upstream sent 2 choices in its reply, where one (n = 1) was asked for");
    String two =
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"ab\"}},"
            + "{\"index\":1,\"delta\":{\"content\":\"cd\"}}]}\n\n";
    assertThatThrownBy(() -> UpstreamEventFieldsTest.streamed(two, USAGE_EVENT))
        .isInstanceOf(EngineException.class)
        .hasMessage("the upstream sent 2 choices in its stream, where one (n = 1) was asked for");
  }

  @Test
  void aChoiceWhoseIndexIsNotZero_failsWholeAndStreamed() throws Exception {
    for (String index : new String[] {"\"index\":1,", "\"index\":\"0\",", "\"index\":-1,"}) {
      assertThatThrownBy(() -> whole(reply(choice(index, "ab", ""))))
          .as(index)
          .isInstanceOf(EngineException.class)
          .hasMessage(
              "the upstream sent a choice whose index is not 0 in its reply, where one choice"
                  + " (n = 1) was asked for");
      assertThatThrownBy(
              () ->
                  UpstreamEventFieldsTest.streamed(
                      event("\"index\":0,", "ab", ""), event(index, "cd", ""), USAGE_EVENT))
          .as(index)
          .isInstanceOf(EngineException.class)
          .hasMessage(
              "the upstream sent a choice whose index is not 0 in its stream, where one choice"
                  + " (n = 1) was asked for");
    }
  }

  @Test
  void anIndexOfZero_leftOutOrNull_isServedWholeAndStreamed() throws Exception {
    for (String index : new String[] {"\"index\":0,", "", "\"index\":null,"}) {
      assertThat(UpstreamEventFieldsTest.text(whole(reply(choice(index, "abc", "")))))
          .as(index)
          .isEqualTo("abc");
      assertThat(
              UpstreamEventFieldsTest.text(
                  UpstreamEventFieldsTest.streamed(
                      event(index, "ab", ""), event(index, "c", ""), USAGE_EVENT)))
          .as(index)
          .isEqualTo("abc");
    }
  }

  @Test
  void choicesThatAreNoArray_areNoSecondChoice() throws Exception {
    String keyed = "data: {\"choices\":{\"a\":{\"delta\":{\"content\":\"x\"}},\"b\":{}}}\n\n";
    assertThat(
            UpstreamEventFieldsTest.text(
                UpstreamEventFieldsTest.streamed(
                    keyed, event("\"index\":0,", "abc", ""), USAGE_EVENT)))
        .isEqualTo("abc");
  }
}
