package org.meshjava.engine.jlama;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.engine.jlama.testing.TinyLlama;

/**
 * Weights cut short on disk under a running engine ({@code cp} over the mapped file) fail its
 * serves in words that say so, not with the JVM's {@link InternalError} for the fault.
 */
class JlamaWeightsCutShortTest {
  @TempDir Path tmp;

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
}
