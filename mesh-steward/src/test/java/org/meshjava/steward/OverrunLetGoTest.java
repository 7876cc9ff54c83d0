package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.meshjava.core.Energy;
import org.meshjava.core.ServingEngine;
import org.meshjava.energy.MeterWindow;

/**
 * What an overrunning engine's thread runs when the engine at last returns ({@link
 * Metering#letGo}): the meter's window is let go and the backend slot with it, whatever the meter
 * throws, its words included; nobody waits on that thread, so a throw past it would be lost with
 * its warning. Only the JVM failing passes, once the slot is let go.
 */
class OverrunLetGoTest {

  /** A meter window whose {@code abandon} throws {@code thrown}, counting its calls. */
  private static final class FailingWindow implements MeterWindow {
    private final Throwable thrown;
    final AtomicInteger abandoned = new AtomicInteger();

    FailingWindow(Throwable thrown) {
      this.thrown = thrown;
    }

    @Override
    public Energy close(long estimatedUj) {
      throw new AssertionError("an overrun's window is abandoned, never closed");
    }

    @Override
    public void abandon() {
      abandoned.incrementAndGet();
      if (thrown instanceof RuntimeException r) {
        throw r;
      }
      throw (Error) thrown;
    }
  }

  /**
   * Regression: the warning built its words with {@code toString()} of the meter's exception, which
   * threw out of the engine's thread (its slot released by the finally, the warning lost); and a
   * meter's Error was not caught at all.
   */
  @Test
  void aMeterThrowingAsItLetsGo_evenWordsThatThrow_orAnError_isWarned_andTheSlotGoesBack()
      throws Exception {
    for (Throwable meter :
        List.<Throwable>of(
            new EngineThrowsOddlyTest.Unsayable(), new AssertionError("meter's own assertion"))) {
      ServingEngine serial = BackendSlotsTest.bounded("serial", 1, 0);
      BackendSlots slots = new BackendSlots(List.of(serial));
      BackendSlots.Held held = slots.take(BackendSlotsTest.routed(serial));
      held.handOff();
      held.close(); // the serve ended; the engine's thread still holds the slot
      assertThatThrownBy(() -> slots.take(BackendSlotsTest.routed(serial)))
          .isInstanceOf(ServeException.class);
      FailingWindow window = new FailingWindow(meter);

      String log =
          SnapshotterFailureWordsTest.logOf(
              () -> assertThatCode(() -> Metering.letGo(window, held)).doesNotThrowAnyException());

      assertThat(log)
          .contains(
              "letting go of an overrun engine's meter window failed: "
                  + (meter instanceof EngineThrowsOddlyTest.Unsayable
                      ? EngineThrowsOddlyTest.Unsayable.class.getName()
                      : meter.toString()));
      assertThat(window.abandoned).hasValue(1);
      slots.take(BackendSlotsTest.routed(serial)); // released
    }
  }

  /** The JVM failing as the meter lets go passes, once the slot is let go. */
  @Test
  void theJvmFailingAsTheMeterLetsGo_passes_andTheSlotStillGoesBack() throws Exception {
    ServingEngine serial = BackendSlotsTest.bounded("serial", 1, 0);
    BackendSlots slots = new BackendSlots(List.of(serial));
    BackendSlots.Held held = slots.take(BackendSlotsTest.routed(serial));
    held.handOff();
    OutOfMemoryError oom = new OutOfMemoryError("the heap");

    assertThatThrownBy(() -> Metering.letGo(new FailingWindow(oom), held)).isSameAs(oom);

    slots.take(BackendSlotsTest.routed(serial));
  }
}
