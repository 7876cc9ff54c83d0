package org.meshjava.openai;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * A rendering is whole at every length: a short reply reaches {@link JsonBytes} in one flush of the
 * generator's buffer, a long one or one with a long string (a long completion) in several, and both
 * must read as the tree.
 */
class JsonBytesTest {

  @Test
  void of_rendersTheWholeTree_atLengthsAroundAndFarBeyondOneGeneratorBuffer() {
    for (int length : new int[] {0, 1, 3_000, 7_950, 7_990, 8_000, 8_010, 16_100, 100_003}) {
      StringBuilder text = new StringBuilder(length);
      for (int i = 0; i < length; i++) {
        text.append(i % 7 == 0 ? 'é' : (char) ('a' + i % 26));
      }
      ObjectNode node = JsonNodeFactory.instance.objectNode();
      node.put("id", "chatcmpl-" + length);
      node.put("content", text.toString());
      node.putArray("after").add(length).add(true);

      assertThat(new String(JsonBytes.of(node), StandardCharsets.UTF_8))
          .as("length %d", length)
          .isEqualTo(node.toString());
    }
  }
}
