package org.meshjava.energy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.meshjava.energy.ProbedMeter.CPU0;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.meshjava.core.Energy;
import org.meshjava.core.Provenance;

/**
 * Another meter's read that counts out a window gone stale and then fails to tell its owner (an
 * {@link OutOfMemoryError} growing the owner's list) changes nothing: counted out first, the window
 * stayed in its own ledger's books for good, and every later serve on that meter was {@code
 * ModelBased}. The failure is planted where the owner is told ({@link
 * OpenWindows#beforeTellingOwner}). So does a failure handing the owner its windows counted out
 * elsewhere ({@link OpenWindows#beforeHandingOver}): they are handed over at its next read.
 */
class StaleWindowTellFailureTest {
  private final TwoMetersOnePackage pkg = new TwoMetersOnePackage();

  @AfterEach
  void noHook() {
    OpenWindows.beforeTellingOwner(() -> {});
    OpenWindows.beforeHandingOver(() -> {});
  }

  @Test
  void aStaleWindowWhoseOwnerCouldNotBeTold_isCountedOutAtALaterRead_andLeavesNothingBehind() {
    try (CounterMeter a = pkg.overFirst();
        CounterMeter b = pkg.overSecond()) {
      pkg.clock.advanceMillis(5);
      MeterWindow lost = a.open(Set.of(CPU0));
      pkg.clock.advanceMillis(61 * 60_000L);
      OpenWindows.beforeTellingOwner(
          () -> {
            throw new OutOfMemoryError("planted: telling the owner");
          });

      assertThatThrownBy(b::pollCounters).isInstanceOf(OutOfMemoryError.class);
      OpenWindows.beforeTellingOwner(() -> {});

      assertThat(ProbedMeter.serveAlone(a, pkg.clock))
          .as("a serve after the lost window is alone: nothing was left in the books")
          .isEqualTo(Provenance.HwShunt);
      pkg.clock.advanceMillis(50);
      assertThat(lost.close(1_000)).isEqualTo(Energy.estimated(1_000));
    }
  }

  /**
   * Regression: the owner's windows were marked handed over before they were copied for it, so an
   * {@link OutOfMemoryError} in the copy left them in its list unseen until another read counted
   * out one more of its windows.
   */
  @Test
  void windowsCountedOutElsewhere_whoseHandOverFailed_areHandedOverAtTheOwnersNextRead() {
    Object hardware = new Object();
    OpenWindows.Owner lostIn = new OpenWindows.Owner();
    OpenWindows.Owner reader = new OpenWindows.Owner();
    OpenWindows.Counted lost = OpenWindows.opened(hardware, pkg.clock, lostIn, 0);
    long anHourOn = DomainLedger.STALE_WINDOW_NANOS;
    assertThat(OpenWindows.expireStale(hardware, pkg.clock, reader, anHourOn)).hasSize(1);
    OpenWindows.beforeHandingOver(
        () -> {
          throw new OutOfMemoryError("planted: copying the owner's windows");
        });

    assertThatThrownBy(() -> OpenWindows.countedOutElsewhere(lostIn))
        .isInstanceOf(OutOfMemoryError.class);
    OpenWindows.beforeHandingOver(() -> {});

    assertThat(OpenWindows.countedOutElsewhere(lostIn))
        .as("handed over at the next read, though nothing more was counted out")
        .isEqualTo(List.of(lost));
    assertThat(OpenWindows.countedOutElsewhere(lostIn)).as("once only").isEmpty();
  }
}
