package org.meshjava.openai;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.meshjava.core.EngineException;

/**
 * What an unauthenticated client reads of a failed engine, through the real server (SPEC.md 60.10):
 * an engine's own words may name a file, a model or a key, so the client reads them only where the
 * engine declared them its client's ({@link EngineException#clientWords()}); otherwise the backend
 * failed and a reference, under which the server's log has the whole throw, at WARN at most once a
 * minute a backend, and its words in one INFO line between.
 */
class EngineFailureWordsHttpTest {
  private static final String SECRET = "open /secret/path/model.bin?key=sk-123";

  private static final Pattern REFERENCE =
      Pattern.compile(
          "failed: its own words are in the server's log, under reference ([0-9a-f]{16})$");

  private static String reference(String message) {
    Matcher m = REFERENCE.matcher(message);
    assertThat(m.find()).as(message).isTrue();
    return m.group(1);
  }

  /**
   * Regression: the 502's message was the engine's exception message verbatim ("backend leaky
   * failed: open /secret/path/model.bin?key=sk-123"), and no line of the log said the engine
   * failed.
   */
  @Test
  void anEnginesOwnWords_reachTheOperatorsLog_underTheReferenceTheClientReads_notTheClient() {
    try (Fixture f =
        new Fixture(
            null,
            b -> b.backend(ThrowingEngine.named("leaky", new IllegalStateException(SECRET))),
            b -> {})) {
      AtomicReference<Fixture.Answer> answer = new AtomicReference<>();
      String log =
          Fixture.stderrOf(() -> answer.set(f.post("/v1/chat/completions", Fixture.chat("boom"))));

      String message = answer.get().error(502, "engine_failed").get("message").asText();
      assertThat(answer.get().body())
          .doesNotContain("/secret", "model.bin", "sk-123", "IllegalStateException");
      assertThat(message).startsWith("backend leaky failed: ");
      String reference = reference(message);
      assertThat(log)
          .contains("WARN", "reference " + reference, SECRET, "IllegalStateException")
          .contains("\tat "); // the stack, for the operator

      // The next failure within the minute: another reference, no second WARN nor stack (no
      // flood), and its words under that reference at the default level (INFO), as its client
      // was told. Regression: they were at DEBUG only, in no line the default level writes.
      AtomicReference<Fixture.Answer> again = new AtomicReference<>();
      String next =
          Fixture.stderrOf(() -> again.set(f.post("/v1/chat/completions", Fixture.chat("boom"))));
      String second = reference(again.get().error(502, "engine_failed").get("message").asText());
      assertThat(second).isNotEqualTo(reference);
      assertThat(next)
          .contains("INFO", SECRET + " (reference " + second + ")")
          .doesNotContain("WARN", "\tat ");
    }
  }

  /** Words an engine declared its client's reach the client as it wrote them, and no reference. */
  @Test
  void anEnginesDeclaredWords_reachTheClient() {
    EngineException declared =
        new EngineException(
            "prompt of 9000 tokens over /models/secret.gguf's context",
            "the prompt is longer than this model's context",
            null);
    try (Fixture f =
        new Fixture(null, b -> b.backend(ThrowingEngine.named("declares", declared)), b -> {})) {
      Fixture.Answer a = f.post("/v1/chat/completions", Fixture.chat("boom"));
      assertThat(a.error(502, "engine_failed").get("message").asText())
          .isEqualTo("backend declares failed: the prompt is longer than this model's context");
      assertThat(a.body()).doesNotContain("/models", "reference");
    }
  }
}
