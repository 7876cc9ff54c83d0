package org.meshjava.engine.onnx;

import java.time.Duration;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * Holds the JVM's exit back, for a bounded time, while this module's native code builds an engine
 * (the tokenizer, ONNX Runtime's environment and session, the determinism probe), and refuses to
 * start such a build once the JVM has begun to stop.
 *
 * <p>Why: a stop by signal (SIGTERM, Ctrl-C) runs the shutdown hooks side by side and then ends the
 * process, which frees ONNX Runtime's native globals, while other threads may still be in its
 * native code; a session being created then crashed the JVM (SIGSEGV in {@code libonnxruntime.so},
 * exit 134, an {@code hs_err_pid*.log} left in the working folder). The JVM ends only once every
 * shutdown hook has returned, so a hook of this class that waits for the builds in progress keeps
 * the end from overtaking them ({@link OrtEnvironmentPin} keeps ONNX Runtime's own hook from
 * freeing the environment meanwhile). The wait is bounded ({@link #JVM}'s bound is far above a
 * build's few seconds) so that a build stuck in native code cannot keep a stopped process alive. A
 * build that then fails because the JVM is stopping (ONNX Runtime's loader asks for a shutdown hook
 * or a deletion on exit and is refused "Shutdown in progress") is reported as {@link
 * OnnxEngineException.Reason#STOPPING}, not as an unreadable model.
 *
 * <p>The hook is put in place on the first build, not when the class loads: a JVM that never builds
 * an engine keeps no hook. A JVM already stopping by then refuses the hook, and so the build.
 * Thread-safe.
 */
final class ExitHold {
  /** How long {@link #JVM}'s hook waits for builds in progress before letting the JVM end. */
  static final Duration JVM_BOUND = Duration.ofSeconds(30);

  /** The JVM's hold, its hook put in place through {@link Runtime#addShutdownHook}. */
  static final ExitHold JVM = new ExitHold(Runtime.getRuntime()::addShutdownHook, JVM_BOUND);

  private final Consumer<Thread> hooks;
  private final long boundNanos;
  private boolean hooked;
  private boolean stopping;
  private int held;

  /**
   * A hold whose hook is given to {@code hooks} (which throws {@link IllegalStateException} once
   * the JVM is stopping, as {@link Runtime#addShutdownHook} does), waiting at most {@code bound}.
   */
  ExitHold(Consumer<Thread> hooks, Duration bound) {
    this.hooks = hooks;
    this.boundNanos = bound.toNanos();
  }

  /**
   * A build begins: it holds the JVM's exit until {@link #release()}.
   *
   * @throws OnnxEngineException {@code STOPPING} where the JVM has begun to stop: nothing is built
   */
  void building() throws OnnxEngineException {
    if (!hold()) {
      throw stopped(null);
    }
  }

  /**
   * Native work other than a build (an engine's close) begins and holds the JVM's exit until {@link
   * #release()}; false, holding nothing, where the JVM has begun to stop, which frees what the work
   * would have.
   */
  synchronized boolean hold() {
    if (!hooked && !stopping) {
      try {
        hooks.accept(new Thread(this::stop, "onnx-engine-exit-hold"));
        hooked = true;
      } catch (IllegalStateException shuttingDown) {
        stopping = true;
      }
    }
    if (stopping) {
      return false;
    }
    held++;
    return true;
  }

  /** The work that {@link #building()} or {@link #hold()} began has ended, done or failed. */
  synchronized void release() {
    held--;
    notifyAll();
  }

  /** Whether the JVM has begun to stop, as far as this hold has learnt. */
  synchronized boolean stopping() {
    return stopping;
  }

  /**
   * The refusal of a build because the JVM is stopping; {@code cause} is how it failed, if it did.
   */
  static OnnxEngineException stopped(@Nullable Throwable cause) {
    return new OnnxEngineException(
        OnnxEngineException.Reason.STOPPING,
        "the process is stopping (a signal); the engine was not built",
        cause);
  }

  /**
   * Whether {@code failure} is, or was caused by, the JVM's refusal of a shutdown hook or a
   * deletion on exit because it has begun to stop: {@link Runtime#addShutdownHook} and {@link
   * java.io.File#deleteOnExit} throw {@link IllegalStateException} "Shutdown in progress" from the
   * moment the JVM begins to stop, before any hook (this hold's included) has run.
   */
  static boolean refusedAsStopping(Throwable failure) {
    Throwable t = failure;
    // Bounded: a cause chain may loop.
    for (int depth = 0; t != null && depth < 16; depth++, t = t.getCause()) {
      if (t instanceof IllegalStateException && "Shutdown in progress".equals(t.getMessage())) {
        return true;
      }
    }
    return false;
  }

  /** The hook's work: refuses native work from now on and waits, bounded, for that in progress. */
  synchronized void stop() {
    stopping = true;
    long deadline = System.nanoTime() + boundNanos;
    long left = boundNanos;
    while (held > 0 && left > 0) {
      try {
        wait(Math.max(1, left / 1_000_000));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
      left = deadline - System.nanoTime();
    }
  }
}
