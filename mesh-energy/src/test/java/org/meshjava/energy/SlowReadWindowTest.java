package org.meshjava.energy;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.meshjava.core.Energy;
import org.meshjava.core.EnergyDomain;

/**
 * A window is long enough to grade from a counter only if the counter's two reads are ten update
 * periods apart (SPEC.md 40 §4), not merely the caller's open and close: a read at the open that is
 * slow (a driver call that blocks, a wait for the ledger behind other windows' reads) leaves the
 * counter less of the window to resolve than the caller's clock shows. Fake time: the slow read
 * moves the clock while it runs.
 */
class SlowReadWindowTest {
  private static final EnergyDomain GPU0 = EnergyDomain.gpu(0);

  private final FakeClock clock = new FakeClock();
  private final List<Runnable> scheduled = new ArrayList<>();

  /** A board refreshing its counter every 100 ms at 300 W, probed and live. */
  private final TimedCounter gpu = new TimedCounter(GPU0, clock, 100, 300_000, true);

  private final CounterMeter meter = clock.watch(ProbedMeter.unprobed(clock, scheduled::add, gpu));

  /** Makes the next read of the counter take {@code millis} of the clock, and only that one. */
  private void nextReadTakes(long millis) {
    AtomicLong left = new AtomicLong(millis);
    gpu.onRead(() -> clock.advanceMillis(left.getAndSet(0)));
  }

  /** Opens a window whose read takes 700 ms, and closes it 1.1 s after the open began. */
  private Energy windowWithASlowOpenRead(long estimateUj, boolean freezeAfterOpen) {
    meter.probeNow();
    assertThat(meter.liveDomains()).containsExactly(GPU0);
    long periodMs = meter.updatePeriodNanos(GPU0) / 1_000_000;
    assertThat(periodMs).as("learnt update period").isBetween(100L, 102L);
    nextReadTakes(700);
    long openedMs = clock.nanoTime() / 1_000_000;
    MeterWindow w = meter.open(Set.of(GPU0));
    if (freezeAfterOpen) {
      gpu.freeze();
    }
    // Ten periods and more after the open began, 400 ms (four refreshes) after its read ended.
    clock.advanceMillis(openedMs + 11 * periodMs - clock.nanoTime() / 1_000_000);
    return w.close(estimateUj);
  }

  @Test
  void aWindowWhoseOpenReadWasSlow_spanningFewerThanTenPeriodsOfReads_isTheEstimate() {
    Energy e = windowWithASlowOpenRead(5_000, false);

    assertThat(e)
        .as("four refreshes are quantisation, not a reading")
        .isEqualTo(Energy.estimated(5_000));
  }

  /**
   * A counter that did not change between two reads too few periods apart for the stall rule to see
   * it, over a serve the caller estimates at 0 µJ, was a reading of 0 µJ graded {@code HwShunt}.
   */
  @Test
  void aCounterUnchangedBetweenReadsTooCloseToResolve_isNeverAMeasuredZero() {
    Energy e = windowWithASlowOpenRead(0, true);

    assertThat(e).isEqualTo(Energy.estimated(0));
  }

  @Test
  void aWindowWhoseReadsAreTenPeriodsApart_isStillMeasured() {
    meter.probeNow();
    long periodMs = meter.updatePeriodNanos(GPU0) / 1_000_000;
    nextReadTakes(700);
    MeterWindow w = meter.open(Set.of(GPU0));
    clock.advanceMillis(10 * periodMs);

    assertThat(w.close(5_000).measuredUj()).isPresent();
  }
}
