package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.meshjava.core.ForwardingEngine;
import org.meshjava.core.ServingEngine;
import org.meshjava.engine.ReferenceEngine;

/**
 * {@link BackendSlots} on its own: a backend's queue holds exactly its running and waiting serves,
 * never fewer than one, a released slot can be taken again, and a backend that declares no bound
 * (the default, or a bound past what a semaphore can count) is never refused.
 */
class BackendSlotsTest {

  /** The reference engine under {@code name}, declaring the given bounds. */
  static ServingEngine bounded(String name, int running, int waiting) {
    return new ForwardingEngine(ReferenceEngine.builder().name(name).build()) {
      @Override
      public int maxConcurrentServes() {
        return running;
      }

      @Override
      public int maxWaitingServes() {
        return waiting;
      }
    };
  }

  /** {@code engine} as a serve routed to it names it. */
  static RoutedBackend routed(ServingEngine engine) {
    return new RoutedBackend(engine.name(), engine, () -> {});
  }

  /** Takes {@code n} slots on {@code engine}, all of which must be granted. */
  static List<BackendSlots.Held> take(BackendSlots slots, ServingEngine engine, int n)
      throws ServeException {
    List<BackendSlots.Held> held = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      held.add(slots.take(routed(engine)));
    }
    return held;
  }

  @Test
  void aBoundedBackend_takesItsRunningAndWaitingServes_andRefusesTheNextBusy() throws Exception {
    ServingEngine serial = bounded("serial", 2, 3);
    BackendSlots slots = new BackendSlots(List.of(serial));

    List<BackendSlots.Held> held = take(slots, serial, 5);

    assertThatThrownBy(() -> slots.take(routed(serial)))
        .isInstanceOfSatisfying(
            ServeException.class,
            e -> {
              assertThat(e.reason()).isEqualTo(ServeException.Reason.BACKEND_BUSY);
              assertThat(e.getMessage())
                  .contains("backend serial runs 2 serve(s) at once and queues 3")
                  .contains("retry shortly");
            });
    held.getFirst().close();
    slots.take(routed(serial)); // the slot released is free again
    assertThatThrownBy(() -> slots.take(routed(serial))).isInstanceOf(ServeException.class);
  }

  @Test
  void aBackendDeclaringNoRoomAtAll_stillRunsOneServeAtATime() throws Exception {
    ServingEngine none = bounded("none", 0, 0);
    BackendSlots slots = new BackendSlots(List.of(none));

    BackendSlots.Held one = slots.take(routed(none));

    assertThatThrownBy(() -> slots.take(routed(none))).isInstanceOf(ServeException.class);
    one.close();
    slots.take(routed(none));
  }

  @Test
  void aBackendWithTheDefaultBounds_isNeverRefused_andItsSlotsCloseQuietly() throws Exception {
    ServingEngine open = ReferenceEngine.builder().name("open").build();
    BackendSlots slots = new BackendSlots(List.of(open));

    for (BackendSlots.Held h : take(slots, open, 1_000)) {
      h.close();
    }
  }

  @Test
  void anUnboundedBackendsSlot_handedOffToAnOverrunEngine_givesAnActionToRun() throws Exception {
    // The engine's thread runs what handOff gives it when an overrun engine returns, on every
    // backend: one without a queue has no slot to release, but still an action.
    ServingEngine open = ReferenceEngine.builder().name("open").build();
    BackendSlots.Held held = new BackendSlots(List.of(open)).take(routed(open));

    Runnable release = held.handOff();

    assertThat(release).isNotNull();
    release.run();
    held.close();
  }

  @Test
  void aHandedOffSlot_staysTakenPastClose_untilItsActionRuns_once() throws Exception {
    ServingEngine serial = bounded("serial", 1, 0);
    BackendSlots slots = new BackendSlots(List.of(serial));
    BackendSlots.Held held = slots.take(routed(serial));

    Runnable release = held.handOff();
    held.close();

    assertThatThrownBy(() -> slots.take(routed(serial))).isInstanceOf(ServeException.class);
    release.run();
    release.run();
    slots.take(routed(serial));
    assertThatThrownBy(() -> slots.take(routed(serial))).isInstanceOf(ServeException.class);
  }

  @Test
  void aBackendBoundedPastWhatASemaphoreCounts_isUnbounded() throws Exception {
    // Running Integer.MAX_VALUE and waiting 1 add up past an int: a cast would make the sum
    // negative and the queue one slot long.
    ServingEngine huge = bounded("huge", Integer.MAX_VALUE, 1);
    BackendSlots slots = new BackendSlots(List.of(huge));

    take(slots, huge, 1_000);
  }

  @Test
  void eachBackend_hasAQueueOfItsOwn() throws Exception {
    ServingEngine a = bounded("a", 1, 0);
    ServingEngine b = bounded("b", 1, 0);
    BackendSlots slots = new BackendSlots(List.of(a, b));

    slots.take(routed(a));

    slots.take(routed(b));
    assertThatThrownBy(() -> slots.take(routed(a))).isInstanceOf(ServeException.class);
    assertThatThrownBy(() -> slots.take(routed(b))).isInstanceOf(ServeException.class);
  }
}
