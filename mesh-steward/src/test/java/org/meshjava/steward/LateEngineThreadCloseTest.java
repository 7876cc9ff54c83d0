package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * An engine's own thread (under an engine deadline) counts as inside the serve it works for only
 * while that serve lasts. An engine that overran keeps running after its serve ended, while the
 * serving thread (a pool's) goes on to serve another request: the late engine's thread is inside
 * none of them, so a close it makes waits for that other serve like any close.
 */
@Timeout(60)
class LateEngineThreadCloseTest {
  private final InFlightServes serves = new InFlightServes();

  /** Runs {@code wrapped} on a thread of its own, as an engine deadline does, and waits for it. */
  private void onEngineThread(Runnable wrapped) throws InterruptedException {
    Thread t = Thread.ofPlatform().start(wrapped);
    t.join();
  }

  @Test
  void anEngineThread_isInsideItsServeWhileTheServeLasts() throws InterruptedException {
    assertThat(serves.enter()).isTrue();
    AtomicBoolean inside = new AtomicBoolean();
    onEngineThread(serves.onBehalfOfThisThread(() -> inside.set(serves.servingOnThisThread())));
    assertThat(inside).isTrue();
    serves.exit();
  }

  /**
   * Regression: the engine's thread shared the serving thread's count itself, so once that thread
   * served another request the late engine counted that serve as its own, and a close it made
   * returned (and closed the journal) while the other serve still ran.
   */
  @Test
  void aLateEngineThread_isNotInsideTheNextServeOnItsServingThread() throws InterruptedException {
    assertThat(serves.enter()).isTrue(); // serve A, whose engine overruns
    AtomicBoolean inside = new AtomicBoolean(true);
    Runnable late = serves.onBehalfOfThisThread(() -> inside.set(serves.servingOnThisThread()));
    serves.exit(); // A ends; its engine goes on
    assertThat(serves.enter()).isTrue(); // serve B on the same (pooled) thread
    onEngineThread(late);
    serves.exit();
    assertThat(inside).as("the late engine's thread counts as inside serve B").isFalse();
  }
}
