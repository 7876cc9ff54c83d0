package org.meshjava.fuzz;

import com.code_intelligence.jazzer.junit.FuzzTest;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.Arrays;
import org.meshjava.openai.BindingException;
import org.meshjava.openai.GrantedServeRequest;
import org.meshjava.openai.Prompt;

/**
 * The prompt as the binding content-addresses it: the canonical prompt text an upstream engine
 * reads back, and the messages of a chat or responses body whose text that is.
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
