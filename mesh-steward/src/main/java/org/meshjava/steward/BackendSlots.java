package org.meshjava.steward;

import java.util.IdentityHashMap;
import java.util.List;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.meshjava.core.ServingEngine;

/**
 * The bounded queue in front of each backend that declares one: a serve routed to it takes a slot
 * (running or waiting) or is refused at once with {@link ServeException.Reason#BACKEND_BUSY},
 * before any grant is decided. Slots are released when the serve's engine call is done.
 *
 * <p>A backend that declares no bound has no slots, but its engine calls that overran the engine
 * deadline and still run (each on a thread of its own, which nothing can stop) are counted: while
 * {@link #UNDECLARED_OVERRUNS} of them run, it is refused {@code BACKEND_BUSY} too, so a backend
 * that hangs cannot pile up a thread per serve. The count is read at admission, so calls admitted
 * before it reached the bound still run and may overrun too: at most {@code UNDECLARED_OVERRUNS}
 * plus the serves then in flight on the backend, less one, are left running, and those are the
 * callers' threads. Thread-safe.
 */
final class BackendSlots {
  /**
   * How many engine calls past their deadline a backend that declares no bound may have running
   * before it is refused new serves: enough that a few slow calls do not stop it, few enough that a
   * hung one costs a handful of threads.
   */
  static final int UNDECLARED_OVERRUNS = 8;

  /** A declared bound, as the backend declared it when the steward was built. */
  private record Bound(Semaphore slots, int running, int waiting) {}

  // Keyed by the engine itself, not its name(), and filled once here (never changed after): an
  // engine whose name() answers otherwise later must not slip its bound. Its bounds are read once
  // too, so a refusal names what is enforced.
  private final IdentityHashMap<ServingEngine, Bound> slots = new IdentityHashMap<>();
  private final IdentityHashMap<ServingEngine, AtomicInteger> overruns = new IdentityHashMap<>();

  /** The engine calls, on every backend, that overran the deadline and have not returned yet. */
  private final AtomicInteger stillRunning = new AtomicInteger();

  BackendSlots(List<ServingEngine> backends) {
    for (ServingEngine e : backends) {
      int running = e.maxConcurrentServes();
      int waiting = e.maxWaitingServes();
      long bound = (long) running + waiting;
      if (bound < Integer.MAX_VALUE) {
        slots.put(e, new Bound(new Semaphore((int) Math.max(1, bound)), running, waiting));
      } else {
        overruns.put(e, new AtomicInteger());
      }
    }
  }

  /**
   * A held slot; closing it releases the slot, unless it was {@linkplain #handOff handed off} to an
   * engine that outlived its serve. Released once, whoever releases it.
   */
  static final class Held implements AutoCloseable {
    private final @Nullable Semaphore slot;
    private final @Nullable AtomicInteger overruns;
    private final AtomicInteger stillRunning;
    private final AtomicBoolean released = new AtomicBoolean();
    private final AtomicBoolean handedOff = new AtomicBoolean();

    private Held(
        @Nullable Semaphore slot, @Nullable AtomicInteger overruns, AtomicInteger stillRunning) {
      this.slot = slot;
      this.overruns = overruns;
      this.stillRunning = stillRunning;
    }

    /** Releases the slot when its serve ends, unless an engine still running holds it. */
    @Override
    public void close() {
      if (!handedOff.get()) {
        release();
      }
    }

    /**
     * Keeps the slot past the serve's end for an engine that overran its deadline: the engine's
     * thread releases it through the returned action when the engine returns, so a stuck backend is
     * never asked to run more serves at once than it declared. On a backend that declares no bound
     * the overrun is counted until then instead. Either thread may call it first; it counts once.
     */
    Runnable handOff() {
      if (handedOff.compareAndSet(false, true)) {
        stillRunning.incrementAndGet();
        if (overruns != null) {
          overruns.incrementAndGet();
        }
      }
      return this::release;
    }

    private void release() {
      if (released.compareAndSet(false, true)) {
        if (slot != null) {
          slot.release();
        }
        if (handedOff.get()) {
          stillRunning.decrementAndGet();
          if (overruns != null) {
            overruns.decrementAndGet();
          }
        }
      }
    }
  }

  /**
   * How many engine calls, on any backend, overran the deadline and still run: each was {@linkplain
   * Held#handOff handed} its slot and has not returned.
   */
  int stillRunning() {
    return stillRunning.get();
  }

  /**
   * Takes a slot on {@code backend}, found by its engine; a refusal names it as registered.
   *
   * @throws ServeException {@code BACKEND_BUSY} if its queue is full, or, on a backend that
   *     declares no bound, while {@link #UNDECLARED_OVERRUNS} calls past the deadline still run
   */
  Held take(RoutedBackend backend) throws ServeException {
    ServingEngine engine = backend.engine();
    Bound b = slots.get(engine);
    if (b == null) {
      AtomicInteger overrun = overruns.get(engine);
      if (overrun == null) {
        return new Held(null, null, stillRunning);
      }
      if (overrun.get() >= UNDECLARED_OVERRUNS) {
        throw new ServeException(
            ServeException.Reason.BACKEND_BUSY,
            backend
                + " declares no bound on its serves and has "
                + overrun.get()
                + " engine call(s) still running past the engine deadline; retry once they"
                + " return");
      }
      return new Held(null, overrun, stillRunning);
    }
    Semaphore s = b.slots();
    if (!s.tryAcquire()) {
      throw new ServeException(
          ServeException.Reason.BACKEND_BUSY,
          backend
              + " runs "
              + b.running()
              + " serve(s) at once"
              + " and queues "
              + b.waiting()
              + "; all are taken, retry shortly");
    }
    return new Held(s, null, stillRunning);
  }
}
