package org.meshjava.steward;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;
import org.meshjava.core.ServingEngine;

/**
 * The bounded queue in front of each backend that declares one: a serve routed to it takes a slot
 * (running or waiting) or is refused at once with {@link ServeException.Reason#BACKEND_BUSY},
 * before any grant is decided. Slots are released when the serve's engine call is done.
 * Thread-safe.
 */
final class BackendSlots {
  private final Map<String, Semaphore> slots = new ConcurrentHashMap<>();

  BackendSlots(List<ServingEngine> backends) {
    for (ServingEngine e : backends) {
      long bound = (long) e.maxConcurrentServes() + e.maxWaitingServes();
      if (bound < Integer.MAX_VALUE) {
        slots.put(e.name(), new Semaphore((int) Math.max(1, bound)));
      }
    }
  }

  /**
   * A held slot; closing it releases the slot, unless it was {@linkplain #handOff handed off} to an
   * engine that outlived its serve. Released once, whoever releases it.
   */
  static final class Held implements AutoCloseable {
    private static final Held NONE = new Held(null);

    private final @Nullable Semaphore slot;
    private final AtomicBoolean released = new AtomicBoolean();
    private volatile boolean handedOff;

    private Held(@Nullable Semaphore slot) {
      this.slot = slot;
    }

    /** Releases the slot when its serve ends, unless an engine still running holds it. */
    @Override
    public void close() {
      if (!handedOff) {
        release();
      }
    }

    /**
     * Keeps the slot past the serve's end for an engine that overran its deadline: the engine's
     * thread releases it through the returned action when the engine returns, so a stuck backend is
     * never asked to run more serves at once than it declared.
     */
    Runnable handOff() {
      if (slot == null) {
        return () -> {};
      }
      handedOff = true;
      return this::release;
    }

    private void release() {
      if (slot != null && released.compareAndSet(false, true)) {
        slot.release();
      }
    }
  }

  /**
   * Takes a slot on {@code engine}.
   *
   * @throws ServeException {@code BACKEND_BUSY} if its queue is full
   */
  Held take(ServingEngine engine) throws ServeException {
    Semaphore s = slots.get(engine.name());
    if (s == null) {
      return Held.NONE;
    }
    if (!s.tryAcquire()) {
      throw new ServeException(
          ServeException.Reason.BACKEND_BUSY,
          "backend "
              + engine.name()
              + " runs "
              + engine.maxConcurrentServes()
              + " serve(s) at once"
              + " and queues "
              + engine.maxWaitingServes()
              + "; all are taken, retry shortly");
    }
    return new Held(s);
  }
}
