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
 * Two meters (and four) of one process on one counter, serves opening and closing in each on
 * several threads at once. Each open and close tells the other meter, whose ledger reads under its
 * own monitor: a lock taken in one order by one meter and the other by the other would hang here,
 * so the run is bounded and fails rather than hangs. Every figure together is no more than the
 * counter drew over the run (the split counts every meter's windows), and no window is left counted
 * once all are closed (a count left over would grade every later serve on the counter ModelBased).
 * Fake time, idle draw only, so both meters' channels hold the same total at every read.
 */
class TwoMetersContentionTest {
  private static final int THREADS_PER_METER = 3;
  private static final int SERVES = 60;

  private final TwoMetersOnePackage pkg = new TwoMetersOnePackage();
  private final FakeClock clock = pkg.clock;
  private final TimedCounter first = pkg.first;

  @Test
  void concurrentServesInTwoMeters_neitherHang_norSumOverTheDraw_norLeaveACount() throws Exception {
    try (CounterMeter a = pkg.overFirst();
        CounterMeter b = pkg.overSecond()) {
      servesAtOnce(List.of(a, b), THREADS_PER_METER * 2, SERVES, 20);
    }
  }

  /**
   * Four meters, 64 threads: the process's count of windows on the counter, kept oldest first, is
   * linked and unlinked from every thread with openings that arrive out of order (session 36).
   */
  @Test
  void sixtyFourThreadsInFourMeters_neitherHang_norSumOverTheDraw_norLeaveACount()
      throws Exception {
    List<CounterMeter> meters = new ArrayList<>();
    try {
      meters.add(pkg.overFirst());
      meters.add(pkg.overSecond());
      for (int m = 2; m < 4; m++) {
        TimedCounter c = TimedCounter.rapl(ProbedMeter.CPU0, clock).sameHardwareAs(first);
        meters.add(ProbedMeter.overPackageZero(c, clock, r -> {}));
      }
      servesAtOnce(meters, 64, 15, 1);
    } finally {
      meters.forEach(CounterMeter::close);
    }
  }

  /**
   * Runs {@code serves} serves on each of {@code threads} threads, spread over {@code meters}, each
   * serve {@code serveMillis} ms and up to 2 more long, bounded; then checks that no window is left
   * counted and every figure together is no more than the counter drew.
   */
  private void servesAtOnce(List<CounterMeter> meters, int threads, int serves, long serveMillis)
      throws Exception {
    clock.advanceMillis(5);
    long before = first.drawnUj();
    AtomicLong figures = new AtomicLong();
    CyclicBarrier start = new CyclicBarrier(threads);
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<?>> runs = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        CounterMeter meter = meters.get(t % meters.size());
        runs.add(
            pool.submit(
                () -> {
                  start.await();
                  for (int i = 0; i < serves; i++) {
                    MeterWindow w = meter.open(Set.of(ProbedMeter.CPU0));
                    clock.advanceMillis(serveMillis + i % 3);
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

    assertThat(OpenWindows.on(first.hardware()))
        .as("windows counted on the counter once every one closed")
        .isZero();
    // Each rounded figure may be half a µJ over its share.
    assertThat(figures.get())
        .as("every figure of %s serves over %s µJ drawn", threads * serves, drawn)
        .isLessThanOrEqualTo(drawn + (long) threads * serves);
  }
}
