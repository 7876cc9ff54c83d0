package org.meshjava.fuzz;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.meshjava.openai.BindingException;
import org.meshjava.openai.GrantedServeRequest;
import org.meshjava.openai.Prompt;

/**
 * The prompt as the binding content-addresses it: the canonical prompt text an upstream engine
 * reads back, and the messages of a chat or responses body whose text that is. {@link #text}
 * mutates bytes; {@link #framed} writes messages in the text's own framing ({@code role len\n
 * content\n}), then now and then frames one wrongly (a length one off, a leading zero, another byte
 * where a newline belongs), so that inputs reach past the first header.
 */
class PromptFuzzTest {
  @FuzzTest(maxDuration = "60s")
  void text(byte[] input) {
    Hostile.only(
        () -> {
          Prompt prompt = Prompt.parse(input);
          if (!Arrays.equals(prompt.bytes(), input)) {
            throw new AssertionError("accepted prompt text re-encodes differently");
          }
        },
        IllegalArgumentException.class);
  }

  @FuzzTest(maxDuration = "60s")
  void framed(FuzzedDataProvider data) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    boolean canonical = true;
    int messages = data.consumeInt(1, 4);
    for (int i = 0; i < messages; i++) {
      String role = data.consumeBoolean() ? "user" : data.consumeString(34);
      byte[] content =
          data.consumeBoolean()
              ? data.consumeString(64).getBytes(StandardCharsets.UTF_8)
              : data.consumeBytes(64);
      String length = Integer.toString(content.length);
      switch (data.consumeInt(0, 7)) {
        case 0 -> length = Integer.toString(content.length + data.pickValue(new int[] {-1, 1}));
        case 1 -> length = "0" + length;
        case 2 -> length = length + data.consumeString(2);
        default -> {}
      }
      boolean wellEnded = data.consumeInt(0, 7) > 0;
      out.writeBytes((role + " " + length + "\n").getBytes(StandardCharsets.UTF_8));
      out.writeBytes(content);
      out.write(wellEnded ? '\n' : data.consumeByte());
      canonical &=
          wellEnded
              && length.equals(Integer.toString(content.length))
              && role.matches("[A-Za-z0-9_-]{1,32}")
              && Arrays.equals(
                  new String(content, StandardCharsets.UTF_8).getBytes(StandardCharsets.UTF_8),
                  content);
    }
    byte[] rest = data.consumeRemainingAsBytes();
    out.writeBytes(rest);
    text(out.toByteArray());
    if (canonical && rest.length == 0) {
      // Text written in the framing, with valid roles and UTF-8 content, is accepted.
      Hostile.only(() -> Prompt.parse(out.toByteArray()));
    }
  }

  @FuzzTest(maxDuration = "60s")
  void messages(byte[] input) {
    Hostile.only(
        () -> {
          JsonNode body = GrantedServeRequest.parseBody(input);
          Hostile.only(() -> readsBack(Prompt.ofChat(body)), BindingException.class);
          Hostile.only(() -> readsBack(Prompt.ofResponses(body)), BindingException.class);
        },
        BindingException.class);
  }

  /** A prompt taken from a body is the prompt its canonical text reads back to (what is hashed). */
  private static void readsBack(Prompt prompt) {
    if (!Prompt.parse(prompt.bytes()).equals(prompt)) {
      throw new AssertionError("the prompt's text reads back to another prompt");
    }
  }
}
