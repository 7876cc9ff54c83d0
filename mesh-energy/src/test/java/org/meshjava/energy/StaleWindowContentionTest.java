package org.meshjava.energy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.meshjava.core.Provenance;

/**
 * Four meters on one counter, serves on eight threads, time running minutes per serve so windows
 * cross the hour while other meters read: a window's close races its expiry by another meter's
 * read, and a lost window (never closed) is counted out by whichever meter reads first. No close
 * throws or hangs, none is refused as closed twice, and once every serve is done and an hour more
 * has passed, no window is left counted. Fake time, no sleeps.
 */
class StaleWindowContentionTest {
  private static final long MINUTE_MS = 60_000;
  private static final int THREADS = 8;
  private static final int SERVES = 60;

  private final TwoMetersOnePackage pkg = new TwoMetersOnePackage();
  private final FakeClock clock = pkg.clock;

  @Test
  void closesRacingExpiryInOtherMeters_neitherThrowNorLeaveACount() throws Exception {
    List<CounterMeter> meters = new ArrayList<>();
    ExecutorService pool = Executors.newFixedThreadPool(THREADS);
    try {
      meters.add(pkg.overFirst());
      meters.add(pkg.overSecond());
      for (int m = 2; m < 4; m++) {
        TimedCounter c = TimedCounter.rapl(ProbedMeter.CPU0, clock).sameHardwareAs(pkg.first);
        meters.add(ProbedMeter.overPackageZero(c, clock, r -> {}));
      }
      clock.advanceMillis(5);
      AtomicInteger estimated = new AtomicInteger();
      CyclicBarrier start = new CyclicBarrier(THREADS);
      List<Future<?>> runs = new ArrayList<>();
      for (int t = 0; t < THREADS; t++) {
        CounterMeter meter = meters.get(t % meters.size());
        int me = t;
        runs.add(
            pool.submit(
                () -> {
                  start.await();
                  List<MeterWindow> held = new ArrayList<>();
                  for (int i = 0; i < SERVES; i++) {
                    MeterWindow w = meter.open(Set.of(ProbedMeter.CPU0));
                    if ((i + me) % 7 == 0) {
                      // Lost: never closed, for a read to count out after the hour.
                      continue;
                    }
                    // Held 25 serves of this thread alone, 75 min, so each close is past the hour
                    // however the threads interleave.
                    held.add(w);
                    clock.advanceMillis(3 * MINUTE_MS + i % 5);
                    if (held.size() > 24) {
                      MeterWindow old = held.remove(0);
                      if (old.close(0).provenance() == Provenance.Estimator) {
                        estimated.incrementAndGet();
                      }
                    }
                    meter.pollCounters();
                  }
                  for (MeterWindow w : held) {
                    w.close(0);
                  }
                  return null;
                }));
      }
      assertTimeoutPreemptively(
          Duration.ofMinutes(1),
          () -> {
            for (Future<?> run : runs) {
              run.get();
            }
          },
          "closes racing expiry hung");
      clock.advanceMillis(61 * MINUTE_MS);
      meters.forEach(CounterMeter::pollCounters);

      assertThat(OpenWindows.on(pkg.first.hardware())).as("windows left counted").isZero();
      assertThat(estimated.get()).as("closes of windows past the hour").isPositive();
      assertThat(ProbedMeter.serveAlone(meters.get(0), clock))
          .as("a serve alone after the run")
          .isNotEqualTo(Provenance.ModelBased);
    } finally {
      pool.shutdownNow();
      meters.forEach(CounterMeter::close);
    }
  }
}
