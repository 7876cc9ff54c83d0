package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.meshjava.engine.onnx.OnnxEngineException;

/**
 * {@code mesh demo} stopped by a signal while MiniLM loads: the engine holds the process's exit
 * until its native build ends, and a build then refused by the stopping JVM ("Shutdown in
 * progress") is the stop's doing. The load is a seam here that fails as such a build does.
 */
class DemoStopWhileMiniLmLoadsTest {
  /**
   * Regression: the loader's refusal read as the demo failing to load its model, said as the
   * process ended, beside the stop hook's "stopped before it ended" line. It is now the demo's
   * stop, which says nothing of its own.
   */
  @Test
  void aLoadRefusedBecauseTheProcessIsStopping_isTheDemosStop() {
    assertThatThrownBy(
            () ->
                DemoCommand.unlessStopped(
                    () -> {
                      throw new CliException(
                          "cannot load the MiniLM decision engine",
                          new OnnxEngineException(OnnxEngineException.Reason.STOPPING, "stopping"));
                    }))
        .isInstanceOf(DemoStop.StoppedException.class);
  }

  /** Any other failure to load stays the demo's failure, said as it was. */
  @Test
  void aLoadThatFailsOtherwise_isStillAFailure() {
    CliException broken =
        new CliException(
            "cannot load the MiniLM decision engine",
            new OnnxEngineException(OnnxEngineException.Reason.MODEL_UNREADABLE, "broken"));
    assertThatThrownBy(
            () ->
                DemoCommand.unlessStopped(
                    () -> {
                      throw broken;
                    }))
        .isSameAs(broken);
  }
}
