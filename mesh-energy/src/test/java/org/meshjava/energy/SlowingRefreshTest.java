package org.meshjava.energy;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.meshjava.core.Energy;
import org.meshjava.core.EnergyDomain;
import org.meshjava.core.Provenance;

/**
 * A counter whose refreshes slow after its probe (a driver lowering its rate, a board gone idle)
 * but stay under the stall rule's five periods is still live; the ten-period rule and the tail rule
 * must then span the refreshes it makes now, as the reads prove them, not the probe's (SPEC.md 40
 * §2). Fake time, no sleeps.
 */
class SlowingRefreshTest {
  private static final EnergyDomain GPU0 = EnergyDomain.gpu(0);
  private static final long PROBED_PERIOD = 100_000_000L;

  private final FakeClock clock = new FakeClock();
  private final List<Runnable> scheduled = new ArrayList<>();

  /** A board at 60 W idle refreshing its counter every 100 ms when probed. */
  private final TimedCounter gpu = new TimedCounter(GPU0, clock, 100, 60_000, true);

  private CounterMeter meter;

  @BeforeEach
  void probe() {
    meter = clock.watch(ProbedMeter.unprobed(clock, scheduled::add, gpu));
    meter.probeNow();
    assertThat(meter.liveDomains()).containsExactly(GPU0);
    assertThat(meter.updatePeriodNanos(GPU0)).isEqualTo(PROBED_PERIOD);
  }

  @AfterEach
  void closeMeter() {
    meter.close();
  }

  /** Reads the counter every 50 ms for {@code millis}, as windows and timed reads would. */
  private void readEvery50ms(long millis) {
    for (long t = 0; t < millis; t += 50) {
      clock.advanceMillis(50);
      meter.pollCounters();
    }
  }

  /** Moves the clock a millisecond at a time until the counter publishes a new total. */
  private void untilARefresh() throws CounterException {
    long was = gpu.readTotalUj();
    while (gpu.readTotalUj() == was) {
      clock.advanceMillis(1);
    }
  }

  @Test
  void refreshSlowedUnderTheStallBound_widensThePeriod_soAWindowOfTenOldPeriodsIsNoReading() {
    gpu.refreshEveryMillis(400); // under 5 × 100 ms: never stalled
    readEvery50ms(2_000);

    // 1.5 s is fifteen probed periods but under four refreshes: each end may lag by 400 ms.
    MeterWindow w = meter.open(Set.of(GPU0));
    readEvery50ms(1_500);
    assertThat(w.close(1)).isEqualTo(Energy.estimated(1));
    assertThat(meter.liveDomains()).containsExactly(GPU0);
    assertThat(meter.updatePeriodNanos(GPU0)).isGreaterThanOrEqualTo(3 * PROBED_PERIOD);

    // Ten of the refreshes it makes now are a reading again, a refresh after the last close.
    readEvery50ms(400);
    MeterWindow longer = meter.open(Set.of(GPU0));
    readEvery50ms(4_500);
    assertThat(longer.close(1).provenance()).isEqualTo(Provenance.HwShunt);
  }

  @Test
  void periodWidenedWhileAWindowIsOpen_putsItsOpenInsideThePreviousServesTail()
      throws CounterException {
    gpu.refreshEveryMillis(400);
    untilARefresh();
    clock.advanceMillis(10);
    MeterWindow first = meter.open(Set.of(GPU0));
    clock.advanceMillis(2_000); // 10 ms past a refresh: the next is 390 ms away
    gpu.work(70_000_000); // the serve's last 100 ms at 700 W
    first.close(1);
    clock.advanceMillis(150); // past the probe's 100 ms, well inside a 400 ms refresh

    MeterWindow next = meter.open(Set.of(GPU0));
    readEvery50ms(5_000); // these reads prove the slower refreshes
    Energy e = next.close(1);

    // 5 s at 60 W is 300 J; the 70 J tail of the first serve is in it: a mix, not a reading.
    assertThat(e.provenance()).isEqualTo(Provenance.ModelBased);
    assertThat(e.estimatedUj()).isGreaterThan(300_000_000L + 70_000_000L - 30_000_000L);
    assertThat(meter.updatePeriodNanos(GPU0)).isGreaterThanOrEqualTo(3 * PROBED_PERIOD);
  }

  @Test
  void oneLateRefresh_doesNotWidenThePeriod() {
    readEvery50ms(500);
    gpu.freeze(); // three refreshes missed, then the counter catches up
    readEvery50ms(350);
    gpu.thaw();
    readEvery50ms(1_000);
    assertThat(meter.updatePeriodNanos(GPU0)).isEqualTo(PROBED_PERIOD);
  }

  @Test
  void reprobe_learnsThePeriodAfresh() {
    gpu.refreshEveryMillis(400);
    readEvery50ms(2_000);
    assertThat(meter.updatePeriodNanos(GPU0)).isGreaterThan(PROBED_PERIOD);
    gpu.refreshEveryMillis(100);
    meter.probeNow();
    assertThat(meter.updatePeriodNanos(GPU0)).isEqualTo(PROBED_PERIOD);
  }

  @Test
  void refreshFastAgain_keepsTheWidenedPeriodUntilTheReprobe() {
    gpu.refreshEveryMillis(400);
    readEvery50ms(2_000);
    long widened = meter.updatePeriodNanos(GPU0);
    assertThat(widened).isGreaterThan(PROBED_PERIOD);
    gpu.refreshEveryMillis(100);
    readEvery50ms(60_000);
    // Reads prove how long a value held (a lower bound on the refresh), never how soon the next
    // came; the wide figure only makes grading stricter, and the re-probe learns it afresh.
    assertThat(meter.updatePeriodNanos(GPU0)).isEqualTo(widened);
    meter.probeNow();
    assertThat(meter.updatePeriodNanos(GPU0)).isEqualTo(PROBED_PERIOD);
  }

  @Test
  void readsFurtherApartThanTheRefresh_proveNoSlowerRate() {
    for (int i = 0; i < 20; i++) {
      clock.advanceMillis(1_000);
      meter.pollCounters();
    }
    assertThat(meter.updatePeriodNanos(GPU0)).isEqualTo(PROBED_PERIOD);
  }
}
