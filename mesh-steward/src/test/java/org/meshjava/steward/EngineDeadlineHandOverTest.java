package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.meshjava.core.EngineException;

/**
 * The hand-over of an engine's call under a deadline ({@link EngineDeadline.Call}) ends the serving
 * thread's wait whatever the engine's thread met after the engine's work: the JVM failing as it
 * hands the result over is what the wait ends with, never a wait for good. The failure is put in
 * through the call's {@code handingOver} seam, where the old hand-over allocated (a future
 * completed exceptionally).
 */
class EngineDeadlineHandOverTest {

  /**
   * Regression: out of memory as the engine's thread completed the future, the engine was marked
   * ended with nothing handed over, and the serving thread looped on the future for good, pinned.
   */
  @Test
  void theJvmFailingAsTheEnginesThreadHandsOver_endsTheWait_withThatFailure() throws Exception {
    OutOfMemoryError oom = new OutOfMemoryError("Java heap space (handing over)");
    AtomicInteger letGo = new AtomicInteger();
    EngineDeadline.Call call =
        new EngineDeadline.Call(
            letGo::incrementAndGet,
            () -> {},
            () -> {
              throw oom;
            });
    Thread engine =
        Thread.ofPlatform()
            .daemon()
            .start(
                () ->
                    call.run(
                        () -> {
                          throw new EngineException("the engine's own failure");
                        }));

    // A deadline no loaded machine reaches: the wait must end by the hand-over, not the clock (with
    // a short one, an engine thread started late would be an overrun, the test flaky).
    Throwable t =
        assertTimeoutPreemptively(
            Duration.ofSeconds(10),
            () -> catchThrowable(() -> call.await(engine, Duration.ofMinutes(5))));

    assertThat(t).isSameAs(oom);
    engine.join(5_000);
    assertThat(letGo).hasValue(0); // ended in time: nothing was handed off to let go
  }
}
