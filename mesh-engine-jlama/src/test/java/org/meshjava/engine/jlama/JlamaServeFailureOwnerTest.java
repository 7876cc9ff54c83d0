package org.meshjava.engine.jlama;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.nio.file.Path;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.core.EngineResult;
import org.meshjava.core.TokenSink;

/**
 * A failure in a serve is told as whose it is: the caller's sink throwing is the caller's own
 * exception, passed on; the JVM failing in the pass is the JVM's failure, thrown as itself; only
 * the pass's own failure is the engine's {@code INFERENCE_FAILED}.
 */
class JlamaServeFailureOwnerTest {
  @TempDir static Path tmp;
  static InjectedPassFault pass;

  @BeforeAll
  static void load() throws Exception {
    pass = new InjectedPassFault(tmp.resolve("tiny"));
  }

  @AfterAll
  static void close() {
    pass.close();
  }

  /**
   * Regression: the sink's exception came back as the engine's "INFERENCE_FAILED: forward pass
   * failed: java.lang.IllegalStateException: client gone", blaming the model for the caller's own
   * callback.
   */
  @Test
  void aSinkThatThrows_getsItsOwnExceptionBack_notAFailedPass() {
    IllegalStateException own = new IllegalStateException("client gone");
    TokenSink sink =
        token -> {
          throw own;
        };
    Throwable thrown =
        catchThrowable(
            () -> pass.engine.serve(JlamaEngineTest.REQUEST, JlamaEngineTest.PROMPT, sink));
    assertThat(thrown).isSameAs(own);
  }

  /** Even where its words are the JVM's for a mapped file's fault: whose it is decides. */
  @Test
  void aSinkThrowingTheFaultsWords_isStillTheCallers() {
    RuntimeException own =
        new RuntimeException(new InternalError("a fault occurred in an unsafe memory access"));
    Throwable thrown =
        catchThrowable(
            () ->
                pass.engine.serve(
                    JlamaEngineTest.REQUEST,
                    JlamaEngineTest.PROMPT,
                    token -> {
                      throw own;
                    }));
    assertThat(thrown).isSameAs(own);
  }

  /**
   * Regression: out of memory on one of Jlama's worker threads, handed back wrapped, failed the
   * serve as "INFERENCE_FAILED: forward pass failed: java.lang.RuntimeException: …", so the command
   * line reported a failed backend, not the JVM's limit (exit 71) and the setting that lifts it.
   */
  @Test
  void theJvmFailingOnAWorkerThread_isThrownAsTheJvmsFailure() {
    OutOfMemoryError jvm = new OutOfMemoryError("Java heap space");
    pass.nextPassThrows(new RuntimeException(new ExecutionException(jvm)));
    Throwable thrown =
        catchThrowable(() -> pass.engine.serve(JlamaEngineTest.REQUEST, JlamaEngineTest.PROMPT));
    assertThat(thrown).isSameAs(jvm);
  }

  @Test
  void theJvmFailingOnTheServingThread_isThrownAsItself() {
    StackOverflowError jvm = new StackOverflowError();
    pass.nextPassThrows(jvm);
    assertThat(
            catchThrowable(
                () -> pass.engine.serve(JlamaEngineTest.REQUEST, JlamaEngineTest.PROMPT)))
        .isSameAs(jvm);
  }

  /** After each of those the engine serves again, the same tokens as before. */
  @Test
  void afterAFailedServe_theEngineServesAgain() throws Exception {
    EngineResult before = pass.engine.serve(JlamaEngineTest.REQUEST, JlamaEngineTest.PROMPT);
    pass.nextPassThrows(new IllegalStateException("once"));
    catchThrowable(() -> pass.engine.serve(JlamaEngineTest.REQUEST, JlamaEngineTest.PROMPT));
    assertThat(pass.engine.serve(JlamaEngineTest.REQUEST, JlamaEngineTest.PROMPT).tokens())
        .isEqualTo(before.tokens());
  }
}
