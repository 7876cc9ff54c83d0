package org.meshjava.energy;

import java.util.Set;

/**
 * Two meters of one process over package 0, each reading it through a counter of its own (the same
 * hardware), on one fake clock: the set-up of the tests of how two meters share a counter's energy.
 */
final class TwoMetersOnePackage {
  /** The work both serves do together, in µJ. */
  static final long WORK_UJ = 1_000_000;

  final FakeClock clock = new FakeClock();
  final TimedCounter first = TimedCounter.rapl(ProbedMeter.CPU0, clock);
  final TimedCounter second = TimedCounter.rapl(ProbedMeter.CPU0, clock).sameHardwareAs(first);

  /** A probed meter over {@link #first}, its re-probes never run. */
  CounterMeter overFirst() {
    return ProbedMeter.overPackageZero(first, clock, r -> {});
  }

  /** A probed meter over {@link #second}, its re-probes never run. */
  CounterMeter overSecond() {
    return ProbedMeter.overPackageZero(second, clock, r -> {});
  }

  /** The energy the package drew since {@code beforeUj} ({@link Overlap#beforeUj()}). */
  long drawnSince(long beforeUj) {
    return first.drawnUj() - beforeUj;
  }

  /** Two windows left open over the same work, and what the package had drawn before them. */
  record Overlap(MeterWindow inA, MeterWindow inB, long beforeUj) {}

  /**
   * Opens a window in {@code a}, one in {@code b} 5 ms later, and runs {@link #WORK_UJ} on the
   * package 20 ms after that (in both counters: one package), then lets 30 ms pass; the test closes
   * them in the order it pins.
   */
  Overlap overlapOverWork(CounterMeter a, CounterMeter b) {
    clock.advanceMillis(5);
    long before = first.drawnUj();
    MeterWindow inA = a.open(Set.of(ProbedMeter.CPU0));
    clock.advanceMillis(5);
    MeterWindow inB = b.open(Set.of(ProbedMeter.CPU0));
    clock.advanceMillis(20);
    first.work(WORK_UJ); // one package: the same joule in both meters' channels
    second.work(WORK_UJ);
    clock.advanceMillis(30);
    return new Overlap(inA, inB, before);
  }
}
