package org.meshjava.openai;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;
import org.meshjava.core.internal.WellFormedText;

/**
 * The prompt shapes a body may carry and the canonical prompt text read back (§3.1, SPEC.md section
 * 70): a responses {@code input} array, the text content-part types of both endpoints, and the
 * refusals, each naming where the body is at fault.
 */
class PromptShapesTest {
  private static JsonNode json(String s) throws Exception {
    return Fixture.JSON.readTree(s);
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static void assertUnsupported(ThrowingCallable read, String param) {
    assertThatThrownBy(read)
        .isInstanceOfSatisfying(
            BindingException.class,
            e -> {
              assertThat(e.reason()).isEqualTo(BindingException.Reason.UNSUPPORTED);
              assertThat(e.param()).contains(param);
            });
  }

  @Test
  void aResponsesInputArray_isReadMessageByMessage_afterTheInstructions() throws Exception {
    Prompt p =
        Prompt.ofResponses(
            json(
                """
        {"instructions":"Be brief.","input":[
          {"role":"user","content":"a"},
          {"type":"message","role":"assistant","content":[{"type":"output_text","text":"b"}]},
          {"role":"user","content":[{"type":"input_text","text":"c"},{"type":"text","text":"d"}]}]}"""));

    assertThat(p.bytes())
        .isEqualTo(utf8("system 9\nBe brief.\nuser 1\na\nassistant 1\nb\nuser 2\ncd\n"));
  }

  /**
   * A role OpenAI refuses ({@code wizard}) is served here, a departure SPEC.md section 70 keeps on
   * purpose: the role is part of the canonical prompt text every request id is built from, so which
   * roles a body may carry is that text's rule (1-32 of {@code A-Z a-z 0-9 _ -}), shared by every
   * reader that derives a request, not this binding's. Pinned so a change to it is a decision.
   */
  @Test
  void aRoleOutsideOpenAIs_isServed_asPartOfThePromptText() throws Exception {
    Prompt p =
        Prompt.ofChat(
            json(
                """
        {"messages":[{"role":"wizard","content":"hi"},{"role":"user","content":"a"}]}"""));

    assertThat(p.bytes()).isEqualTo(utf8("wizard 2\nhi\nuser 1\na\n"));
  }

  @Test
  void anInputItemOtherThanAMessage_isRefusedAsUnsupportedNamingIt() {
    assertUnsupported(
        () ->
            Prompt.ofResponses(
                json(
                    """
        {"input":[{"role":"user","content":"a"},{"type":"function_call_output","output":"x"}]}""")),
        "input[1].type");
  }

  @Test
  void aContentPartThatIsNotText_isRefusedAsUnsupportedNamingIt() {
    assertUnsupported(
        () ->
            Prompt.ofChat(
                json(
                    """
        {"messages":[{"role":"user","content":[{"type":"text","text":"a"},{"type":"image_url","image_url":{}}]}]}""")),
        "messages[0].content[1].type");
  }

  /** The refusal says where the lone surrogate is, so the caller can find it in a long prompt. */
  @Test
  void aLoneSurrogate_isRefusedAtItsIndex_highOrLow() {
    assertThatThrownBy(() -> Prompt.wellFormed("ab\uD800c", "input"))
        .hasMessage("input is not well-formed Unicode: a lone surrogate (\\ud800) at char 2");
    assertThatThrownBy(() -> Prompt.wellFormed("a\uD83D\uDE00\uDC00", "input"))
        .hasMessage("input is not well-formed Unicode: a lone surrogate (\\udc00) at char 3");
    assertThat(WellFormedText.unpairedSurrogate("a\uD83D\uDE00")).isEqualTo(-1);
  }

  /** An upstream engine reads its payload back; what is not prompt text is refused as such. */
  @Test
  void promptText_cutAnywhereInAHeader_isRefusedAsNotPromptText() {
    for (String bad : List.of("user 1", "user 1\na\nuser", "user 1\na\nuser 1", "user")) {
      assertThatThrownBy(() -> Prompt.parse(utf8(bad)))
          .as(bad)
          .isExactlyInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("no message header at byte");
    }
  }
}
