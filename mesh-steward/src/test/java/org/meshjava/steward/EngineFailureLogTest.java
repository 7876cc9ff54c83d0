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
 * EngineFailureLog#WARN_EVERY} with its stack, and one INFO line each between.
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
        .as("within the minute: no WARN")
        .doesNotContain("WARN");
    assertThat(e.get().shown()).doesNotEndWith(reference);
    now.addAndGet(1);
    assertThat(refused(new IllegalStateException(SECRET), e))
        .as("once the minute has passed: at WARN again")
        .contains("WARN", SECRET);
  }

  /**
   * Regression: a failure within the minute after a WARN was logged at DEBUG only, so at the
   * default level (INFO) its client was told "its own words are in the server's log, under
   * reference X" and no line of the log had X. Each is now one INFO line, its words and reference,
   * without the stack (no flood of traces).
   */
  @Test
  void aFailureWithinTheMinute_isInTheLogAtInfo_underTheReferenceItsClientReads() throws Exception {
    AtomicReference<ServeException> e = new AtomicReference<>();
    refused(new IllegalStateException(SECRET), e); // the minute's WARN
    String log = refused(new IllegalStateException(SECRET), e);
    String shown = e.get().shown();
    String reference = shown.substring(shown.length() - 16);
    assertThat(shown).endsWith(EngineFailureLog.LOGGED + reference);
    assertThat(log)
        .contains("INFO", "backend ref failed: words (reference " + reference + ")")
        .doesNotContain("WARN", "\tat ", "IllegalStateException");
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

  /**
   * Regression: the process-wide log kept a key for every backend name it was ever given, so an
   * embedder building stewards whose backends take new names grew it for good.
   */
  @Test
  void backendNamesWithoutEnd_areHeldToABound_andANameIsWarnedOfAgainAfterTheClear() {
    WarnLimit limit = new WarnLimit(EngineFailureLog.WARN_EVERY, now::get);
    assertThat(limit.warnNow("first")).isTrue();
    assertThat(limit.warnNow("first")).as("within its gap").isFalse();
    for (int i = 0; i < 3 * WarnLimit.MAX_NAMES; i++) {
      limit.warnNow("steward-" + i);
      assertThat(limit.names()).isLessThanOrEqualTo(WarnLimit.MAX_NAMES);
    }
    assertThat(limit.warnNow("first")).as("forgotten in a clear: said again").isTrue();
  }
}
