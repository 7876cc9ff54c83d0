package org.meshjava.engine.jlama;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.engine.jlama.testing.TinyLlama;

/**
 * Weights cut short on disk under a running engine ({@code cp} over the mapped file) fail its
 * serves in words that say so, not with the JVM's {@link InternalError} for the fault.
 */
class JlamaWeightsCutShortTest {
  @TempDir Path tmp;
  @TempDir static Path shared;
  static InjectedPassFault pass;

  @BeforeAll
  static void load() throws Exception {
    pass = new InjectedPassFault(shared.resolve("tiny"));
  }

  @AfterAll
  static void close() {
    pass.close();
  }

  /**
   * Regression: the serve threw "java.lang.InternalError: a fault occurred in an unsafe memory
   * access operation", which the steward passed on as the backend's failure, naming no file.
   */
  @Test
  void weightsCutShortUnderTheEngine_failTheServe_sayingSo() throws Exception {
    Path dir = tmp.resolve("tiny");
    TinyLlama.write(dir, 42);
    try (JlamaEngine engine = JlamaEngine.builder(dir).build()) {
      try (FileChannel ch =
          FileChannel.open(dir.resolve("model.safetensors"), StandardOpenOption.WRITE)) {
        ch.truncate(4096);
      }
      assertThatThrownBy(() -> engine.serve(JlamaEngineTest.REQUEST, JlamaEngineTest.PROMPT))
          .isInstanceOf(JlamaEngineException.class)
          .hasMessageContaining("INFERENCE_FAILED")
          .hasMessageContaining("cut short on disk while the engine had them mapped");
    }
  }

  /**
   * Regression: the engine knew the fault only as a bare {@link InternalError} in HotSpot's words.
   * Jlama runs a pass's matrix work on its own worker threads, and the fault handed back wrapped in
   * a {@link RuntimeException} failed the serve as "forward pass failed", blaming the engine.
   */
  @Test
  void theFaultWrappedByAWorkerThread_isStillTheWeightsCutShort() {
    RuntimeException wrapped =
        new RuntimeException(
            new java.util.concurrent.ExecutionException(
                new InternalError("a fault occurred in an unsafe memory access operation")));
    pass.nextPassThrows(wrapped);
    assertThatThrownBy(() -> pass.engine.serve(JlamaEngineTest.REQUEST, JlamaEngineTest.PROMPT))
        .isInstanceOf(JlamaEngineException.class)
        .hasMessageContaining("INFERENCE_FAILED")
        .hasMessageContaining("cut short on disk while the engine had them mapped")
        .hasCause(wrapped);
  }

  /**
   * The fault in other words is known, as the journal and the command line know it, by its being
   * thrown from the JDK's own read of a mapped buffer: the rule is mesh-core's, shared.
   */
  @Test
  void theFaultInOtherWords_thrownReadingAMappedBuffer_isTheWeightsCutShort() {
    InternalError reworded = new InternalError("SIGBUS at a mapped address");
    reworded.setStackTrace(
        new StackTraceElement[] {
          new StackTraceElement("java.nio.DirectByteBuffer", "get", "DirectByteBuffer.java", 340)
        });
    pass.nextPassThrows(new RuntimeException(reworded));
    assertThatThrownBy(() -> pass.engine.serve(JlamaEngineTest.REQUEST, JlamaEngineTest.PROMPT))
        .hasMessageContaining("cut short on disk while the engine had them mapped");
  }

  @Test
  void anotherFailureOfThePass_isAFailedForwardPass_namingIt() {
    pass.nextPassThrows(new IllegalStateException("shape mismatch"));
    assertThatThrownBy(() -> pass.engine.serve(JlamaEngineTest.REQUEST, JlamaEngineTest.PROMPT))
        .isInstanceOf(JlamaEngineException.class)
        .hasMessageContaining("INFERENCE_FAILED")
        .hasMessageContaining("forward pass failed: java.lang.IllegalStateException: shape")
        .hasMessageNotContaining("cut short");
  }
}
