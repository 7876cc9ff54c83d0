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
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.meshjava.core.Energy;

/**
 * Four meters of one process over package 0, 64 threads serving on it at once: the count of windows
 * across meters ({@link OpenWindows}, kept oldest first) is linked and unlinked from every thread,
 * with openings that arrive out of order. The run is bounded and fails rather than hangs; every
 * figure together is no more than the counter drew, and no window is left counted. Fake time.
 */
class ManyMetersOnePackageTest {
  private static final int METERS = 4;
  private static final int THREADS = 64;
  private static final int SERVES = 15;

  private final FakeClock clock = new FakeClock();
  private final TimedCounter first = TimedCounter.rapl(ProbedMeter.CPU0, clock);

  @Test
  void sixtyFourThreadsInFourMeters_neitherHang_norSumOverTheDraw_norLeaveACount()
      throws Exception {
    List<CounterMeter> meters = new ArrayList<>();
    try {
      meters.add(ProbedMeter.overPackageZero(first, clock, r -> {}));
      for (int m = 1; m < METERS; m++) {
        TimedCounter c = TimedCounter.rapl(ProbedMeter.CPU0, clock).sameHardwareAs(first);
        meters.add(ProbedMeter.overPackageZero(c, clock, r -> {}));
      }
      clock.advanceMillis(5);
      long before = first.drawnUj();
      AtomicLong figures = new AtomicLong();
      CyclicBarrier start = new CyclicBarrier(THREADS);
      ExecutorService pool = Executors.newFixedThreadPool(THREADS);
      try {
        List<Future<?>> runs = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
          CounterMeter meter = meters.get(t % METERS);
          runs.add(
              pool.submit(
                  () -> {
                    start.await();
                    for (int i = 0; i < SERVES; i++) {
                      MeterWindow w = meter.open(Set.of(ProbedMeter.CPU0));
                      clock.advanceMillis(1 + i % 3);
                      Energy e = w.close(0);
                      figures.addAndGet(e.uj());
                    }
                    return null;
                  }));
        }
        assertTimeoutPreemptively(
            Duration.ofMinutes(2),
            () -> {
              for (Future<?> run : runs) {
                run.get();
              }
            },
            "meters telling each other of their windows hung");
      } finally {
        pool.shutdownNow();
      }
      long drawn = first.drawnUj() - before;

      assertThat(OpenWindows.on(first.hardware())).isZero();
      // Each rounded figure may be half a µJ over its share.
      assertThat(figures.get()).isLessThanOrEqualTo(drawn + (long) THREADS * SERVES);
    } finally {
      meters.forEach(CounterMeter::close);
    }
  }
}
