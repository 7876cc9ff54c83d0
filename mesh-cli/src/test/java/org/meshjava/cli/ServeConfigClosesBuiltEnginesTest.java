package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.meshjava.core.ForwardingEngine;
import org.meshjava.core.ServingEngine;
import org.meshjava.engine.ReferenceEngine;

/**
 * A configuration refused after its engines were built closes every one of them that holds
 * resources ({@link AutoCloseable}: an ONNX session, Jlama's model, an upstream's HTTP client),
 * never only the upstream ones: no steward, nor {@code mesh serve}'s stop, ever sees them. The
 * engines here are fakes that close as ONNX's and Jlama's do, added to the list the configuration
 * builds its backends into, so no model is read.
 */
class ServeConfigClosesBuiltEnginesTest {
  /** A local engine that holds something until closed, as {@code OnnxDecisionEngine} does. */
  private static final class Holding extends ForwardingEngine implements AutoCloseable {
    private final @Nullable RuntimeException closeFails;
    int closed;

    Holding(String name, @Nullable RuntimeException closeFails) {
      super(ReferenceEngine.builder().name(name).build());
      this.closeFails = closeFails;
    }

    @Override
    public void close() {
      closed++;
      if (closeFails != null) {
        throw closeFails;
      }
    }
  }

  /**
   * Regression: the refusal closed only the upstream engines it had built, so an ONNX or Jlama
   * engine built from an earlier entry (a native session, a model) stayed open for good in a JVM
   * that reads the configuration in process.
   */
  @Test
  void aRefusedConfiguration_closesEveryEngineHoldingResources_whateverAClosePastItThrows() {
    RuntimeException closeFailed = new IllegalStateException("the session would not close");
    Holding first = new Holding("onnx-like", closeFailed);
    Holding second = new Holding("jlama-like", null);
    ServingEngine plain = ReferenceEngine.builder().name("reference").build();
    CliException refusal = new CliException("mesh.json: backends[3] is an object");

    ServeConfig.closeBuilt(List.of(first, plain, second), refusal);

    assertThat(first.closed).as("the first engine holding resources").isEqualTo(1);
    assertThat(second.closed).as("the one after a close that threw").isEqualTo(1);
    assertThat(refusal.getSuppressed()).containsExactly(closeFailed);
  }

  /** Which engines hold resources: each closeable one, in order, and no other. */
  @Test
  void holdingResources_isEveryCloseableEngine_andNoOther() {
    Holding local = new Holding("local", null);
    ServingEngine plain = ReferenceEngine.builder().name("reference").build();

    assertThat(ServeConfig.holdingResources(List.of(plain, local))).containsExactly(local);
  }
}
