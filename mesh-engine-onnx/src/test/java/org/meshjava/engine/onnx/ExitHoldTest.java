package org.meshjava.engine.onnx;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * A stop by signal while an engine is built: the process's exit waits for the build (a JVM that
 * ended under ONNX Runtime's session creation crashed in the library, SIGSEGV, exit 134), and the
 * build's failure then is the stop's. The build is a seam here that blocks until the test lets it
 * go, and the JVM's shutdown hook is one the test runs itself.
 */
class ExitHoldTest {
  /** The hold's hook, as the JVM would be handed it. */
  private final AtomicReference<Thread> hook = new AtomicReference<>();

  /**
   * Regression: nothing held the exit back, so the JVM ended while the native build went on. The
   * hook now waits for the build; the loader's "Shutdown in progress" is reported as a stop, and a
   * build begun after the stop is refused before any native work.
   */
  @Test
  void aStopDuringABuild_waitsForIt_andItsFailureIsTheStop() throws Exception {
    ExitHold hold = new ExitHold(hook::set, Duration.ofSeconds(30));
    CountDownLatch loading = new CountDownLatch(1);
    CountDownLatch letGo = new CountDownLatch(1);
    CompletableFuture<OnnxDecisionEngine> build =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return OnnxDecisionEngine.Builder.build(
                    hold,
                    () -> {
                      loading.countDown();
                      try {
                        letGo.await();
                      } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                      }
                      // What ONNX Runtime's loader meets, run on after the signal.
                      throw new IllegalStateException("Shutdown in progress");
                    });
              } catch (OnnxEngineException e) {
                throw new java.util.concurrent.CompletionException(e);
              }
            });
    assertThat(loading.await(10, TimeUnit.SECONDS)).isTrue();
    Thread stop = hook.get();
    assertThat(stop).as("a hook is in place once a build begins").isNotNull();
    stop.start();
    while (stop.getState() != Thread.State.TIMED_WAITING) {
      assertThat(stop.isAlive()).as("the hook waits for the build in progress").isTrue();
      Thread.onSpinWait();
    }
    assertThat(hold.stopping()).isTrue();
    letGo.countDown();
    stop.join(10_000);
    assertThat(stop.isAlive()).as("the hook ends once the build has").isFalse();
    assertThat(build)
        .failsWithin(Duration.ofSeconds(10))
        .withThrowableOfType(java.util.concurrent.ExecutionException.class)
        .havingCause()
        .isInstanceOfSatisfying(
            OnnxEngineException.class,
            e -> {
              assertThat(e.reason()).isEqualTo(OnnxEngineException.Reason.STOPPING);
              assertThat(e.getCause()).hasMessage("Shutdown in progress");
            });
    AtomicInteger loadsAfter = new AtomicInteger();
    assertThatThrownBy(
            () ->
                OnnxDecisionEngine.Builder.build(
                    hold,
                    () -> {
                      loadsAfter.incrementAndGet();
                      throw new AssertionError("no native work once stopping");
                    }))
        .isInstanceOfSatisfying(
            OnnxEngineException.class,
            e -> assertThat(e.reason()).isEqualTo(OnnxEngineException.Reason.STOPPING));
    assertThat(loadsAfter).hasValue(0);
    assertThat(hold.hold()).as("an engine's close is skipped once stopping").isFalse();
  }

  /**
   * Regression: the JVM refuses the loader's shutdown hook or deletion on exit from the moment it
   * begins to stop, before the hold's own hook has run, and that refusal was reported as the
   * model's failure; met while ONNX Runtime's classes initialise (the first build of a process), it
   * comes as an {@link ExceptionInInitializerError}, which escaped the build untyped. Both are now
   * the stop, and the hold is let go.
   */
  @Test
  void aLoaderRefusedAsTheJvmBeginsToStop_isTheStop_beforeTheHookRuns() throws Exception {
    ExitHold hold = new ExitHold(hook::set, Duration.ofSeconds(30));
    IllegalStateException refused = new IllegalStateException("Shutdown in progress");
    for (Throwable failure :
        List.of(
            new IllegalStateException("Failed to create OrtEnvironment", refused),
            new ExceptionInInitializerError(refused))) {
      assertThatThrownBy(
              () ->
                  OnnxDecisionEngine.Builder.build(
                      hold,
                      () -> {
                        if (failure instanceof Error error) {
                          throw error;
                        }
                        throw (RuntimeException) failure;
                      }))
          .as(failure.toString())
          .isInstanceOfSatisfying(
              OnnxEngineException.class,
              e -> {
                assertThat(e.reason()).isEqualTo(OnnxEngineException.Reason.STOPPING);
                assertThat(e.getCause()).isSameAs(failure);
              });
    }
    assertThat(ExitHold.refusedAsStopping(new IllegalStateException("other"))).isFalse();
    long start = System.nanoTime();
    hook.get().run();
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
  }

  /** A build stuck in native code keeps a stopped process only as long as the bound. */
  @Test
  void theHooksWait_isBounded() throws Exception {
    ExitHold hold = new ExitHold(hook::set, Duration.ofMillis(20));
    assertThat(hold.hold()).isTrue();
    long start = System.nanoTime();
    hook.get().run();
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
    assertThat(hold.stopping()).isTrue();
  }

  /** A first build once the JVM is stopping (it refuses the hook) is refused as a stop. */
  @Test
  void aBuildWhereTheJvmRefusesTheHook_isRefusedAsAStop() {
    ExitHold hold =
        new ExitHold(
            h -> {
              throw new IllegalStateException("Shutdown in progress");
            },
            Duration.ofSeconds(1));
    assertThatThrownBy(hold::building)
        .isInstanceOfSatisfying(
            OnnxEngineException.class,
            e -> assertThat(e.reason()).isEqualTo(OnnxEngineException.Reason.STOPPING));
  }

  /** Without a stop, a build's failure stays its own, and the hold is let go. */
  @Test
  void aBuildFailingWithoutAStop_keepsItsReason_andLetsTheHoldGo() throws Exception {
    ExitHold hold = new ExitHold(hook::set, Duration.ofSeconds(30));
    assertThatThrownBy(
            () ->
                OnnxDecisionEngine.Builder.build(
                    hold,
                    () -> {
                      throw new OnnxEngineException(
                          OnnxEngineException.Reason.MODEL_UNREADABLE, "broken");
                    }))
        .isInstanceOfSatisfying(
            OnnxEngineException.class,
            e -> assertThat(e.reason()).isEqualTo(OnnxEngineException.Reason.MODEL_UNREADABLE));
    long start = System.nanoTime();
    hook.get().run();
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
  }
}
