package org.meshjava.energy;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Set;
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
  private static final long WORK_UJ = 1_000_000;

  private final FakeClock clock = new FakeClock();
  private final TimedCounter first = TimedCounter.rapl(ProbedMeter.CPU0, clock);
  private final TimedCounter second =
      TimedCounter.rapl(ProbedMeter.CPU0, clock).sameHardwareAs(first);

  @Test
  void anErrorReadingAtTheOtherMetersClose_leavesNoFigureOverWhatWasDrawn() {
    // Not watched: a watch read between the work and the close would end the shared segment itself
    // and leave the missed read nothing to miss.
    try (CounterMeter a = ProbedMeter.overPackageZero(first, clock, r -> {});
        CounterMeter b = ProbedMeter.overPackageZero(second, clock, r -> {})) {
      clock.advanceMillis(5);
      long before = first.drawnUj();
      MeterWindow inA = a.open(Set.of(ProbedMeter.CPU0));
      clock.advanceMillis(5);
      MeterWindow inB = b.open(Set.of(ProbedMeter.CPU0));
      clock.advanceMillis(20);
      first.work(WORK_UJ); // one package: the same joule in both meters' channels
      second.work(WORK_UJ);
      clock.advanceMillis(30);
      AtomicBoolean armed = new AtomicBoolean(true);
      second.onRead(
          () -> {
            if (armed.getAndSet(false)) {
              throw new AssertionError("driver fault at the other meter's close");
            }
          });
      Energy ofA = inA.close(1);
      assertThat(armed).as("the other meter's counter was read at this close").isFalse();
      clock.advanceMillis(5);
      Energy ofB = inB.close(1);
      long drawn = first.drawnUj() - before;

      assertThat(ofA.uj() + ofB.uj())
          .as("the two figures (%s, %s) of one package over %s µJ drawn", ofA, ofB, drawn)
          .isLessThanOrEqualTo(drawn);
      assertThat(ofB.provenance())
          .as("its books missed the other window's leave")
          .isEqualTo(Provenance.Estimator);
    }
  }
}
