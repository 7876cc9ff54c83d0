package org.meshjava.steward;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;
import org.meshjava.core.IdentifiedRequest;
import org.meshjava.core.TokenSequence;
import org.meshjava.core.TokenSink;
import org.meshjava.core.internal.MappedReadFault;
import org.meshjava.router.RouteDecision;

/**
 * How long a serve waits for its engine ({@code Steward.Builder.engineDeadline}); none by default.
 *
 * <p>With a deadline, the engine runs on a daemon thread of its own while the serving thread waits
 * for it. Past the deadline the serve stops waiting: the engine's thread is interrupted, nothing it
 * hands the caller's sink from then on reaches the sink, and whatever it returns later is dropped.
 * The serve is then the caller's to settle ({@link Overrun}). What the engine still occupies (its
 * backend slot, its meter window) is let go by the engine's thread when the engine does return, so
 * a stuck backend is never asked for more serves than it declared it runs at once.
 *
 * <p>An interrupt of the serving thread while it waits is passed on to the engine's thread (the
 * engine may stop, as it would on the serving thread) and set again when the wait ends.
 *
 * <p>Immutable and thread-safe.
 */
final class EngineDeadline {
  private final Duration limit;
  private final UnaryOperator<Runnable> onEngineThread;
  private final Runnable heldFaults;

  private EngineDeadline(
      Duration limit, UnaryOperator<Runnable> onEngineThread, Runnable heldFaults) {
    this.limit = limit;
    this.onEngineThread = onEngineThread;
    this.heldFaults = heldFaults;
  }

  /**
   * A deadline of {@code limit}; zero is none.
   *
   * @param onEngineThread called on the serving thread with the engine thread's work, which it
   *     wraps so that the engine's thread counts as inside the serve ({@link
   *     InFlightServes#onBehalfOfThisThread})
   * @param heldFaults run on the engine's thread once the engine has returned or thrown: it throws
   *     any fault of a mapped read the engine's compiled code held back ({@link
   *     org.meshjava.core.internal.MappedReadFault#deliverPending}; a test's stand-in otherwise)
   */
  static EngineDeadline of(
      Duration limit, UnaryOperator<Runnable> onEngineThread, Runnable heldFaults) {
    Objects.requireNonNull(limit, "limit");
    Objects.requireNonNull(onEngineThread, "onEngineThread");
    Objects.requireNonNull(heldFaults, "heldFaults");
    return new EngineDeadline(limit, onEngineThread, heldFaults);
  }

  /** The deadline, zero for none. */
  Duration limit() {
    return limit;
  }

  /**
   * Runs {@code ask} on the routed engine, within the deadline.
   *
   * @param afterOverrun run on the engine's thread once the engine returns after an overrun; it
   *     lets go of what the engine occupied
   * @return what the engine did, when it returned in time
   * @throws Overrun when the deadline passed first
   * @throws Throwable whatever the engine threw, as it threw it
   */
  Ask.Worked run(
      Ask ask,
      RouteDecision route,
      IdentifiedRequest request,
      TokenSequence payload,
      Runnable afterOverrun)
      throws Throwable {
    if (limit.isZero()) {
      return ask.run(route, request, payload);
    }
    Call call = new Call(afterOverrun, heldFaults, () -> {});
    Ask gated = ask.gated(call::guard);
    Thread engine =
        Thread.ofPlatform()
            .daemon()
            .name("mesh-engine-" + route.chosenCandidate().backend())
            .start(onEngineThread.apply(() -> call.run(() -> gated.run(route, request, payload))));
    return call.await(engine, limit);
  }

  /** The engine did not return within the deadline; its late result is never used. */
  static final class Overrun extends Exception {
    private static final long serialVersionUID = 1L;

    Overrun(Duration limit) {
      super("it did not return within " + limit.toMillis() + " ms", null, false, false);
    }
  }

  /** What the engine's work is, for the thread that runs it. */
  @FunctionalInterface
  interface Work {
    Ask.Worked run() throws Throwable;
  }

  /**
   * One engine call's hand-over between the serving thread and the engine's. Whether the engine
   * ended or the deadline passed first is decided once, under {@link #lock}, which every token
   * passed to the caller's sink also holds: no token reaches the sink once the serve has stopped
   * waiting, and whoever loses the race knows it.
   *
   * <p>The hand-over is two field writes and a signal under that lock, in a {@code finally}: it
   * allocates nothing that could fail (a lock taken or waited on by this JDK retries rather than
   * throw when it is out of memory), so the serving thread's wait ends whatever the engine's thread
   * met. A future completed exceptionally allocates its result; out of memory there, the engine was
   * marked ended with nothing handed over, and the serving thread waited for good.
   */
  static final class Call {
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition handedOver = lock.newCondition();
    private final Runnable afterOverrun;
    private final Runnable heldFaults;
    private final Runnable handingOver;
    private boolean ended;
    private boolean overrun;
    private Ask.@Nullable Worked worked;
    private @Nullable Throwable failed;

    /**
     * @param handingOver run on the engine's thread after its region, just before the hand-over: a
     *     test's way to have the JVM fail there; a no-op otherwise
     */
    Call(Runnable afterOverrun, Runnable heldFaults, Runnable handingOver) {
      this.afterOverrun = afterOverrun;
      this.heldFaults = heldFaults;
      this.handingOver = handingOver;
    }

    /**
     * On the engine's thread: runs the engine, then hands its result over or lets go.
     *
     * <p>The engine's region ends with {@code heldFaults}, inside the guard: a fault of a mapped
     * read that the engine's compiled code held back (SPEC.md §60.8, "When the fault is thrown")
     * would otherwise be thrown at this thread's next safepoint poll, in the hand-over below, and
     * end the thread with the garbage read handed over as the engine's result, or with nothing
     * handed over, the serve then waiting out its deadline and charged the whole ceiling, the slot
     * and window of an overrun never let go. Whatever is thrown after the engine's work (the fault,
     * or the JVM failing as one throw is suppressed on the other) is what is handed over.
     */
    void run(Work work) {
      Ask.@Nullable Worked result = null;
      @Nullable Throwable thrown = null;
      try {
        try {
          result = work.run();
        } catch (Throwable e) {
          thrown = e;
        }
        try {
          heldFaults.run();
        } catch (Throwable held) {
          thrown = MappedReadFault.atFault(thrown, held);
        }
        handingOver.run();
      } catch (Throwable e) {
        // Ending the region failed itself (out of memory as it suppressed one throw on the other):
        // that is what the engine's call met, and it is handed over in place of what it was doing.
        thrown = e;
      } finally {
        handOver(result, thrown);
      }
    }

    private void handOver(Ask.@Nullable Worked result, @Nullable Throwable thrown) {
      boolean late;
      lock.lock();
      try {
        worked = result;
        failed = thrown;
        ended = true;
        late = overrun;
        handedOver.signalAll();
      } finally {
        lock.unlock();
      }
      if (late) {
        afterOverrun.run();
      }
    }

    /** Passes one sink call on while the serve still waits; a cancel ({@code false}) after. */
    boolean guard(SinkCall sinkCall) {
      lock.lock();
      try {
        return !overrun && sinkCall.pass();
      } finally {
        lock.unlock();
      }
    }

    /** On the serving thread: waits for the engine, at most {@code limit}. */
    Ask.Worked await(Thread engine, Duration limit) throws Throwable {
      long end = System.nanoTime() + limit.toNanos();
      boolean interrupted = false;
      lock.lock();
      try {
        while (!ended) {
          long left = end - System.nanoTime();
          if (left <= 0) {
            overrun = true;
            engine.interrupt();
            throw new Overrun(limit);
          }
          try {
            handedOver.awaitNanos(left);
          } catch (InterruptedException e) {
            interrupted = true;
            engine.interrupt();
          }
        }
        if (failed != null) {
          throw failed;
        }
        return Objects.requireNonNull(worked, "worked"); // set whenever nothing was thrown
      } finally {
        lock.unlock();
        if (interrupted) {
          Thread.currentThread().interrupt();
        }
      }
    }
  }

  /** One call on the caller's sink. */
  @FunctionalInterface
  interface SinkCall {
    boolean pass();
  }

  /** Passes a sink's calls through {@code gate}, which refuses them once the serve stopped. */
  interface Gate {
    boolean guard(SinkCall call);
  }

  /** The caller's sink, reached only through {@code gate}. */
  static TokenSink guarded(TokenSink sink, Gate gate) {
    return new TokenSink() {
      @Override
      public boolean accept(int token) {
        return gate.guard(() -> sink.accept(token));
      }

      @Override
      public boolean acceptRun(TokenSequence run) {
        return gate.guard(() -> sink.acceptRun(run));
      }
    };
  }

  @Override
  public String toString() {
    return limit.isZero() ? "no engine deadline" : "engine deadline " + limit;
  }
}
