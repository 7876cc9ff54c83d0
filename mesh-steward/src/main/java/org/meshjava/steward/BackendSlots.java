package org.meshjava.steward;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
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

  /** A held slot; closing it releases the slot. */
  interface Held extends AutoCloseable {
    @Override
    void close();
  }

  /**
   * Takes a slot on {@code engine}.
   *
   * @throws ServeException {@code BACKEND_BUSY} if its queue is full
   */
  Held take(ServingEngine engine) throws ServeException {
    Semaphore s = slots.get(engine.name());
    if (s == null) {
      return () -> {};
    }
    if (!s.tryAcquire()) {
      throw new ServeException(
          ServeException.Reason.BACKEND_BUSY,
          "backend " + engine.name() + " runs " + engine.maxConcurrentServes() + " serve(s) at once"
              + " and queues " + engine.maxWaitingServes() + "; all are taken, retry shortly");
    }
    return s::release;
  }
}
