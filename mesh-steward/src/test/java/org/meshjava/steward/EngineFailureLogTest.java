package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.meshjava.core.EngineException;
import org.meshjava.engine.ReferenceEngine;

/**
 * The one rule for what a failed engine's client reads (SPEC.md 60.10): its declared words, or a
 * reference to the operator's log line, which is WARN at most once a backend in each {@link
 * EngineFailureLog#WARN_EVERY} and DEBUG between (slf4j-simple's default level, INFO, hides those).
 */
class EngineFailureLogTest {
  private static final String SECRET = "open /secret/path/model.bin?key=sk-123";

  private final AtomicLong now = new AtomicLong(Long.MAX_VALUE - 1_000);
  private final EngineFailureLog failures = new EngineFailureLog(now::get);
  private final RoutedBackend backend =
      new RoutedBackend("ref", ReferenceEngine.builder().build(), () -> {});

  private String refused(Throwable e, AtomicReference<ServeException> out) throws Exception {
    return SnapshotterFailureWordsTest.logOf(
        () -> out.set(failures.refusal(backend, backend + " failed: ", "words", e)));
  }

  /**
   * Regression: the client read the engine's message verbatim, and the operator's log had no line
   * for it at all.
   */
  @Test
  void undeclaredWords_areTheOperatorsUnderAReference_atWarnOnceAMinute() throws Exception {
    AtomicReference<ServeException> e = new AtomicReference<>();
    String log = refused(new IllegalStateException(SECRET), e);
    assertThat(e.get().reason()).isEqualTo(ServeException.Reason.ENGINE_FAILED);
    assertThat(e.get().getMessage()).isEqualTo("ENGINE_FAILED: backend ref failed: words");
    String shown = e.get().shown();
    assertThat(shown)
        .matches(
            "backend ref failed: its own words are in the server's log, under reference"
                + " [0-9a-f]{16}")
        .doesNotContain("secret", "sk-123");
    String reference = shown.substring(shown.length() - 16);
    assertThat(log).contains("WARN", "reference " + reference, SECRET, "\tat ");

    now.addAndGet(EngineFailureLog.WARN_EVERY.toNanos() - 1); // across nanoTime's wrap
    assertThat(refused(new IllegalStateException(SECRET), e))
        .as("within the minute: at debug")
        .doesNotContain("WARN");
    assertThat(e.get().shown()).doesNotEndWith(reference);
    now.addAndGet(1);
    assertThat(refused(new IllegalStateException(SECRET), e))
        .as("once the minute has passed: at WARN again")
        .contains("WARN", SECRET);
  }

  /** Declared words reach the client, past a wrapper without words of its own, and no WARN. */
  @Test
  void declaredWords_reachTheClient() throws Exception {
    AtomicReference<ServeException> e = new AtomicReference<>();
    EngineException declared = new EngineException(SECRET, "too long", null);
    assertThat(refused(declared, e)).doesNotContain("WARN");
    assertThat(e.get().shown()).isEqualTo("backend ref failed: too long");
    refused(new RuntimeException(declared), e);
    assertThat(e.get().shown()).isEqualTo("backend ref failed: too long");
    // A wrapper with words of its own is not the engine's declaration.
    refused(new RuntimeException("at " + SECRET, declared), e);
    assertThat(e.get().shown()).doesNotContain("too long", "secret");
  }
}
