package org.meshjava.energy;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.meshjava.core.Energy;
import org.meshjava.core.Provenance;

/**
 * Two meters of one process read one package; the read one meter takes at the other's close throws
 * an {@link Error}. That read was to end the segment the two windows shared: missed, the next read
 * split the whole span among the windows then open (one), so the window left took the energy the
 * closed one had already taken its share of, and the two figures summed to more than the package
 * drew. The Error is now that counter's failed read: its open windows are not a reading. Fake time,
 * no sleeps.
 */
class ForeignReadErrorTest {
  private final TwoMetersOnePackage pkg = new TwoMetersOnePackage();

  @Test
  void anErrorReadingAtTheOtherMetersClose_leavesNoFigureOverWhatWasDrawn() {
    // Not watched: a watch read between the work and the close would end the shared segment itself
    // and leave the missed read nothing to miss.
    try (CounterMeter a = pkg.overFirst();
        CounterMeter b = pkg.overSecond()) {
      TwoMetersOnePackage.Overlap both = pkg.overlapOverWork(a, b);
      AtomicBoolean armed = new AtomicBoolean(true);
      pkg.second.onRead(
          () -> {
            if (armed.getAndSet(false)) {
              throw new AssertionError("driver fault at the other meter's close");
            }
          });
      Energy ofA = both.inA().close(1);
      assertThat(armed).as("the other meter's counter was read at this close").isFalse();
      pkg.clock.advanceMillis(5);
      Energy ofB = both.inB().close(1);
      long drawn = pkg.drawnSince(both.beforeUj());

      assertThat(ofA.uj() + ofB.uj())
          .as("the two figures (%s, %s) of one package over %s µJ drawn", ofA, ofB, drawn)
          .isLessThanOrEqualTo(drawn);
      assertThat(ofB.provenance())
          .as("its books missed the other window's leave")
          .isEqualTo(Provenance.Estimator);
    }
  }
}
