package org.meshjava.energy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.meshjava.energy.ProbedMeter.CPU0;

import java.util.Set;
import org.junit.jupiter.api.Test;
import org.meshjava.core.Energy;
import org.meshjava.core.Provenance;

/**
 * The twin of {@link StaleAtOwnOpenTest} across meters: a window an hour old by the time its open's
 * read begins may be counted out by another meter's read of the same counter in between (after it
 * was counted in, before its own read), not by its own. It is taken as gone all the same: booked, a
 * lost one stayed in its ledger for good, and every later serve on that meter was {@code
 * ModelBased}. The hour passes, and the other meter reads, at the first clock reading the open
 * makes once its window is counted in.
 */
class StaleAtOwnOpenElsewhereTest {
  private static final long HOUR_AND_A_MINUTE_MS = 61 * 60_000L;

  private final TwoMetersOnePackage pkg = new TwoMetersOnePackage();

  /** The first meter's clock: the shared fake one, with a hook at one reading. */
  private final class HookedClock implements ProbeClock {
    private Runnable atNextReading = () -> {};

    @Override
    public long nanoTime() {
      Runnable hook = atNextReading;
      atNextReading = () -> {};
      hook.run();
      return pkg.clock.nanoTime();
    }

    @Override
    public void burnUntil(long deadlineNanos) {
      pkg.clock.burnUntil(deadlineNanos);
    }

    @Override
    public void idleUntil(long deadlineNanos) {
      pkg.clock.idleUntil(deadlineNanos);
    }
  }

  @Test
  void aWindowCountedOutByAnotherMetersReadBeforeItsOwn_isTheEstimate_andLeavesNothingBehind() {
    HookedClock hooked = new HookedClock();
    try (CounterMeter a = ProbedMeter.overPackageZero(pkg.first, hooked, r -> {});
        CounterMeter b = pkg.overSecond()) {
      pkg.clock.advanceMillis(5);
      MeterWindow lost = openWithLeapBeforeItsRead(a, b, hooked);
      assertThat(OpenWindows.on(pkg.first.hardware()))
          .as("counted out by the other meter's read")
          .isZero();

      assertThat(ProbedMeter.serveAlone(a, pkg.clock))
          .as("a serve after a window lost at its own open is alone")
          .isEqualTo(Provenance.HwShunt);
      pkg.clock.advanceMillis(50);
      assertThat(lost.close(1_000)).isEqualTo(Energy.estimated(1_000));
    }
  }

  /**
   * Opens a window on {@code a}; at the first clock reading after the window is counted in, the
   * clock leaps an hour and {@code b} reads the counter.
   */
  private MeterWindow openWithLeapBeforeItsRead(CounterMeter a, CounterMeter b, HookedClock c) {
    Runnable[] arm = new Runnable[1];
    arm[0] =
        () -> {
          if (OpenWindows.on(pkg.first.hardware()) == 0) {
            c.atNextReading = arm[0]; // not yet counted in: wait for the next reading
            return;
          }
          pkg.clock.advanceMillis(HOUR_AND_A_MINUTE_MS);
          b.pollCounters();
        };
    c.atNextReading = arm[0];
    return a.open(Set.of(CPU0));
  }
}
