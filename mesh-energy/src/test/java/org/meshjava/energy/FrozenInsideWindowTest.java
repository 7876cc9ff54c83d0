package org.meshjava.energy;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.meshjava.core.Energy;
import org.meshjava.core.EnergyDomain;
import org.meshjava.core.Provenance;

/**
 * A counter that freezes inside a window is no reading of it: the stall rule is checked at reads,
 * so a window is graded from the counter only if a read proved it moving within the stall bound
 * before the close, and the meter reads live counters while windows are open on them, and only then
 * (SPEC.md 40 §3). Fake time, no sleeps; the test calls the watch as the meter's thread would.
 */
class FrozenInsideWindowTest {
  private static final EnergyDomain GPU0 = EnergyDomain.gpu(0);
  private static final long PERIOD = 100_000_000L;

  private final FakeClock clock = new FakeClock();
  private final List<Runnable> scheduled = new ArrayList<>();

  /** A board drawing 300 W, refreshing its counter every 100 ms. */
  private final TimedCounter gpu = new TimedCounter(GPU0, clock, 100, 300_000, true);

  private CounterMeter meter;

  @BeforeEach
  void probe() {
    meter = ProbedMeter.unprobed(clock, scheduled::add, gpu).watchedByCaller();
    meter.probeNow();
    assertThat(meter.liveDomains()).containsExactly(GPU0);
    assertThat(meter.updatePeriodNanos(GPU0)).isEqualTo(PERIOD);
    clock.advanceMillis(50);
  }

  @AfterEach
  void closeMeter() {
    meter.close();
  }

  /** Moves the clock {@code millis}, the watch reading whenever it asks to be. */
  private void watched(long millis) {
    long left = millis;
    while (left > 0) {
      OptionalLong every = meter.watchEveryNanos();
      long step = Math.min(left, every.isPresent() ? every.getAsLong() / 1_000_000L : left);
      clock.advanceMillis(step);
      left -= step;
      meter.watchOpenWindows();
    }
  }

  @Test
  void frozenInsideAWindowWithNoReadBeforeTheClose_isNoReading() {
    MeterWindow w = meter.open(Set.of(GPU0));
    clock.advanceMillis(200);
    gpu.freeze(); // two refreshes after the open, then none
    clock.advanceMillis(1_300);
    Energy e = w.close(1);
    // 450 J drawn, 60 J of it in the close's value: not a reading of the window.
    assertThat(e).isEqualTo(Energy.estimated(1));
  }

  @Test
  void meterWithItsOwnThread_holdsClosesToTheStallBound() {
    // Its watch runs in real time, the clock here does not move by itself: whether it reads or
    // not, a counter frozen for 1.3 s of a 1.5 s window is no reading.
    try (CounterMeter own =
        new CounterMeter(
            List.of(gpu),
            List.of(),
            LivenessPolicy.standard(),
            LivenessPolicy.nvml(),
            java.time.Duration.ofMinutes(10),
            java.util.Optional.empty(),
            clock,
            null)) {
      meter.close(); // one meter per counter
      own.probeNow();
      assertThat(own.liveDomains()).containsExactly(GPU0);
      clock.advanceMillis(50);
      MeterWindow w = own.open(Set.of(GPU0));
      clock.advanceMillis(200);
      gpu.freeze();
      clock.advanceMillis(1_300);
      assertThat(w.close(1)).isEqualTo(Energy.estimated(1));
    }
  }

  @Test
  void frozenInsideAWatchedWindow_isDemotedBeforeTheClose() {
    MeterWindow w = meter.open(Set.of(GPU0));
    watched(200);
    gpu.freeze();
    watched(1_300);
    assertThat(meter.counters().getFirst().issue()).contains(CounterIssue.STALLED);
    assertThat(w.close(1)).isEqualTo(Energy.estimated(1));
  }

  @Test
  void liveCounterWatchedThroughTheWindow_isStillAReading() {
    long drawnAtOpen = gpu.drawnUj();
    MeterWindow w = meter.open(Set.of(GPU0));
    watched(1_500);
    Energy e = w.close(1);
    long drawn = gpu.drawnUj() - drawnAtOpen;
    assertThat(e.provenance()).isEqualTo(Provenance.HwShunt);
    // Within one 100 ms refresh (30 J) of what the board drew.
    assertThat(e.measuredUj().orElseThrow()).isBetween(drawn - 30_000_000L, drawn + 30_000_000L);
  }

  @Test
  void raplZoneWatchedEveryTwoMilliseconds_isAReading_untilItFreezes() {
    TimedCounter zone = TimedCounter.rapl(ProbedMeter.CPU0, clock);
    try (CounterMeter rapl =
        ProbedMeter.overPackageZero(zone, clock, scheduled::add).watchedByCaller()) {
      clock.advanceMillis(5);
      assertThat(rapl.watchEveryNanos()).isEmpty();
      MeterWindow w = rapl.open(Set.of(ProbedMeter.CPU0));
      assertThat(rapl.watchEveryNanos()).hasValue(2_000_000L);
      for (int i = 0; i < 25; i++) {
        clock.advanceMillis(2);
        rapl.watchOpenWindows();
      }
      assertThat(w.close(1).provenance()).isEqualTo(Provenance.HwShunt);

      MeterWindow frozen = rapl.open(Set.of(ProbedMeter.CPU0));
      clock.advanceMillis(30);
      rapl.watchOpenWindows();
      zone.freeze();
      clock.advanceMillis(20); // no read since the freeze: 20 refreshes missed
      assertThat(frozen.close(1)).isEqualTo(Energy.estimated(1));
    }
  }

  @Test
  void watch_readsOnlyWhileAWindowIsOpen_everyTwoPeriods() {
    AtomicInteger reads = new AtomicInteger();
    gpu.onRead(reads::incrementAndGet);
    assertThat(meter.watchEveryNanos()).isEmpty();
    meter.watchOpenWindows();
    assertThat(reads).hasValue(0);

    MeterWindow w = meter.open(Set.of(GPU0));
    assertThat(meter.watchEveryNanos()).hasValue(DomainLedger.WATCH_PERIODS * PERIOD);
    meter.watchOpenWindows();
    assertThat(reads).hasValue(2); // the open's read and the watch's
    w.close(1);
    assertThat(meter.watchEveryNanos()).isEmpty();
    meter.watchOpenWindows();
    assertThat(reads).hasValue(3); // the close's read, and no more
  }

  @Test
  void counterNotLive_isNotWatched() {
    gpu.freeze();
    meter.pollCounters(); // the last value it published
    watched(600);
    MeterWindow w = meter.open(Set.of(GPU0)); // the open's read demotes it
    assertThat(meter.liveDomains()).isEmpty();
    assertThat(meter.watchEveryNanos()).isEmpty();
    w.close(1);
  }
}
