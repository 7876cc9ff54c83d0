package org.meshjava.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;
import org.meshjava.steward.Steward;

/**
 * The question of {@link TransparencyLogServeBenchmark} for a shared, loaded machine, where JMH's
 * wall-clock figures for two benchmarks run one after the other move with the load: batches of
 * serves alternate between a steward with the log and one without, each timed in this thread's CPU
 * time, and the median of the per-pair ratios is reported. Target: at most 1.1.
 *
 * <p>Usage: {@code TransparencyLogServeTiming [pairs] [serves per batch]}, defaults 30 and 2048
 * (two checkpoints per batch at the default cadence of 1024).
 */
public final class TransparencyLogServeTiming {
  private TransparencyLogServeTiming() {}

  /** Entry point. */
  public static void main(String[] args) throws Exception {
    int pairs = args.length > 0 ? Integer.parseInt(args[0]) : 30;
    int batch = args.length > 1 ? Integer.parseInt(args[1]) : 2048;
    BenchServe serve = BenchServe.of("benchmark prompt");
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    double[] ratios = new double[pairs];
    long with = 0;
    long without = 0;
    try (Steward logged = TransparencyLogServeBenchmark.steward(true);
        Steward unlogged = TransparencyLogServeBenchmark.steward(false)) {
      for (int warm = 0; warm < 3; warm++) {
        time(threads, logged, serve, batch);
        time(threads, unlogged, serve, batch);
      }
      for (int i = 0; i < pairs; i++) {
        long a = time(threads, logged, serve, batch);
        long b = time(threads, unlogged, serve, batch);
        ratios[i] = (double) a / b;
        with += a;
        without += b;
      }
    }
    Arrays.sort(ratios);
    System.out.printf(
        "%d pairs of %d serves: with the log %.1f us/serve, without %.1f us/serve (CPU time);"
            + " median ratio %.3f (min %.3f, max %.3f), overall %.3f%n",
        pairs,
        batch,
        with / 1e3 / pairs / batch,
        without / 1e3 / pairs / batch,
        ratios[pairs / 2],
        ratios[0],
        ratios[pairs - 1],
        (double) with / without);
  }

  private static long time(ThreadMXBean threads, Steward s, BenchServe serve, int n)
      throws Exception {
    long start = threads.getCurrentThreadCpuTime();
    for (int i = 0; i < n; i++) {
      s.serve(serve.request(), serve.prompt());
    }
    return threads.getCurrentThreadCpuTime() - start;
  }
}
