package org.meshjava.openai;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ReplyEventTest {
  private static String strictUtf8(ByteBuffer wire) throws CharacterCodingException {
    return StandardCharsets.UTF_8
        .newDecoder()
        .onMalformedInput(CodingErrorAction.REPORT)
        .onUnmappableCharacter(CodingErrorAction.REPORT)
        .decode(wire)
        .toString();
  }

  @Test
  void jsonEvent_isOneDataLineEndedByABlankLine() throws Exception {
    ObjectNode data = JsonNodeFactory.instance.objectNode().put("object", "chat.completion.chunk");
    assertThat(strictUtf8(Reply.Event.json(Optional.empty(), data).wire()))
        .isEqualTo("data: {\"object\":\"chat.completion.chunk\"}\n\n");
  }

  @Test
  void namedEvent_leadsWithItsEventLine() throws Exception {
    ObjectNode data = JsonNodeFactory.instance.objectNode().put("type", "response.created");
    assertThat(strictUtf8(Reply.Event.json(Optional.of("response.created"), data).wire()))
        .isEqualTo("event: response.created\ndata: {\"type\":\"response.created\"}\n\n");
  }

  @Test
  void jsonEvent_writesAnEmojiAsUtf8AndEscapesHalfASurrogatePair() throws Exception {
    // As whole replies do (JsonBytes): the stream stays valid UTF-8 and reads back what was put.
    ObjectNode data =
        JsonNodeFactory.instance.objectNode().put("emoji", "\ud83d\ude00").put("half", "a\ud800b");
    String wire = strictUtf8(Reply.Event.json(Optional.empty(), data).wire());
    assertThat(wire).contains("\"emoji\":\"\ud83d\ude00\"").containsIgnoringCase("a\\ud800b");
  }

  @Test
  void textEvent_isSentAsItIs() throws Exception {
    assertThat(strictUtf8(Reply.Event.text(Optional.empty(), "[DONE]").wire()))
        .isEqualTo("data: [DONE]\n\n");
  }

  @Test
  void lineBreakInDataOrName_isRefused() {
    assertThatThrownBy(() -> Reply.Event.text(Optional.empty(), "a\nb"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("data is one line");
    assertThatThrownBy(() -> Reply.Event.text(Optional.of("x\ry"), "[DONE]"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("name is one line");
  }

  @Test
  void lineBreakAtTheVeryStartOfDataOrName_isRefusedToo() {
    assertThatThrownBy(() -> Reply.Event.text(Optional.empty(), "\nb"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Reply.Event.text(Optional.empty(), "\rb"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Reply.Event.text(Optional.of("\nx"), "[DONE]"))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void wire_isAFreshReadOnlyViewEachTime() {
    Reply.Event e = Reply.Event.text(Optional.empty(), "[DONE]");
    ByteBuffer first = e.wire();
    first.get(new byte[first.remaining()]);
    assertThat(first.isReadOnly()).isTrue();
    assertThat(e.wire().remaining()).isEqualTo("data: [DONE]\n\n".length());
  }
}
