package org.meshjava.steward;

import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Semaphore;
import org.meshjava.core.ServingEngine;

/**
 * How many serves each backend may run at once ({@link ServingEngine#maxConcurrentServes()}). A
 * serve takes its routed backend's slot before it is authorised and gives it back when it ends;
 * a serve that finds none free is refused at once ({@link ServeException.Reason#OVERLOADED})
 * rather than queued, so a grant is never reserved for work that waits. The limit belongs to the
 * backend: a local engine is bound by this host's cores, an upstream by what it accepts.
 *
 * <p>Thread-safe.
 */
final class BackendSlots {
  private final Map<ServingEngine, Semaphore> slots = new IdentityHashMap<>();

  BackendSlots(List<ServingEngine> backends) {
    for (ServingEngine e : backends) {
      slots.put(e, new Semaphore(Math.max(1, e.maxConcurrentServes())));
    }
  }

  /**
   * Takes one of {@code engine}'s slots.
   *
   * @throws ServeException {@code OVERLOADED} when all are taken
   */
  Slot take(ServingEngine engine) throws ServeException {
    Semaphore s = slots.get(engine);
    if (s == null) {
      throw new IllegalStateException("not one of this steward's backends: " + engine.name());
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
