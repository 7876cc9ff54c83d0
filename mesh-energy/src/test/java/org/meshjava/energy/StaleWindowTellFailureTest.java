package org.meshjava.energy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.meshjava.energy.ProbedMeter.CPU0;

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
 * OpenWindows#beforeTellingOwner}).
 */
class StaleWindowTellFailureTest {
  private final TwoMetersOnePackage pkg = new TwoMetersOnePackage();

  @AfterEach
  void noHook() {
    OpenWindows.beforeTellingOwner(() -> {});
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
}
