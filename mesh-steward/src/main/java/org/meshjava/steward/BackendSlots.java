package org.meshjava.steward;

import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Semaphore;
import org.meshjava.core.ServingEngine;

/**
 * How many serves each backend may run at once ({@link ServingEngine#maxConcurrentServes()}). A
 * serve takes its routed backend's slot before it is authorised and gives it back when it ends;
 * a serve that finds none free waits for one or is refused at once ({@link
 * ServeException.Reason#OVERLOADED}), as {@link BackendBusy} says; either way a grant is never
 * reserved for work that waits. The limit belongs to the
 * backend: a local engine is bound by this host's cores, an upstream by what it accepts.
 *
 * <p>Thread-safe.
 */
final class BackendSlots {
  private final Map<ServingEngine, Semaphore> slots = new IdentityHashMap<>();
  private final BackendBusy busy;

  BackendSlots(List<ServingEngine> backends, BackendBusy busy) {
    this.busy = busy;
    for (ServingEngine e : backends) {
      slots.put(e, new Semaphore(Math.max(1, e.maxConcurrentServes())));
    }
  }

  /**
   * Takes one of {@code engine}'s slots.
   *
   * @throws ServeException {@code OVERLOADED} when all are taken and the policy is to refuse, or
   *     the wait is interrupted
   */
  Slot take(ServingEngine engine) throws ServeException {
    Semaphore s = slots.get(engine);
    if (s == null) {
      throw new IllegalStateException("not one of this steward's backends: " + engine.name());
    }
    if (busy == BackendBusy.WAIT) {
      try {
        s.acquire();
        return s::release;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new ServeException(
            ServeException.Reason.OVERLOADED,
            "interrupted waiting for a free slot on backend " + engine.name());
      }
    }
    if (!s.tryAcquire()) {
      throw new ServeException(
          ServeException.Reason.OVERLOADED,
          "backend " + engine.name() + " is already running its limit of "
              + engine.maxConcurrentServes() + " serves; retry shortly");
    }
    return s::release;
  }

  /** A taken slot; closing it gives it back. */
  interface Slot extends AutoCloseable {
    @Override
    void close();
  }
}
