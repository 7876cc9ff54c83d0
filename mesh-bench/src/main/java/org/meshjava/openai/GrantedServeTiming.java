package org.meshjava.openai;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.meshjava.jcp.Presentation;
import org.meshjava.steward.Steward;

/**
 * {@link GrantedServeBenchmark}'s question for a loaded machine, where wall-clock figures move with
 * other processes: each operation timed in the serving thread's CPU time and counted in the bytes
 * it allocates. A granted serve end to end without HTTP (the binding reads the body and decodes its
 * presentation, the steward decides, journals in memory, serves on the reference engine and seals,
 * the reply is rendered), the same body ungranted, the body's read alone ({@code Endpoints.read})
 * and the presentation's decode alone ({@link Presentation#fromHex}). Presentations are signed
 * before each timed batch. Rounds alternate the operations; each figure is the median over rounds
 * of the per-operation mean, with the range.
 *
 * <p>Usage: {@code GrantedServeTiming [rounds=12] [per round=2000] [links=2] [profile seconds=0]};
 * with profile seconds above 0 it only serves granted bodies for that long (for a JFR recording).
 */
public final class GrantedServeTiming {
  private GrantedServeTiming() {}

  private static final com.sun.management.ThreadMXBean THREADS =
      (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

  /** One timed operation on input {@code i} of a batch. */
  @FunctionalInterface
  private interface Op {
    void run(int i) throws Exception;
  }

  /** Runs {@code op} over {@code n} inputs; returns {CPU ns per op, bytes per op}. */
  private static double[] time(Op op, int n) throws Exception {
    long id = Thread.currentThread().threadId();
    long bytes0 = THREADS.getThreadAllocatedBytes(id);
    long cpu0 = THREADS.getCurrentThreadCpuTime();
    for (int i = 0; i < n; i++) {
      op.run(i);
    }
    long cpu = THREADS.getCurrentThreadCpuTime() - cpu0;
    long bytes = THREADS.getThreadAllocatedBytes(id) - bytes0;
    return new double[] {(double) cpu / n, (double) bytes / n};
  }

  /** Entry point. */
  public static void main(String[] args) throws Exception {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 12;
    int n = args.length > 1 ? Integer.parseInt(args[1]) : 2000;
    int links = args.length > 2 ? Integer.parseInt(args[2]) : 2;
    int profileSeconds = args.length > 3 ? Integer.parseInt(args[3]) : 0;
    try (Steward steward = GrantedBodies.steward()) {
      Endpoints endpoints = GrantedBodies.endpoints(steward);
      GrantedBodies g = new GrantedBodies(steward.identity(), links);
      byte[] ungranted = GrantedBodies.utf8(GrantedBodies.BODY);
      if (profileSeconds > 0) {
        long end = System.nanoTime() + profileSeconds * 1_000_000_000L;
        while (System.nanoTime() < end) {
          for (byte[] b : bodies(g, n)) {
            GrantedBodies.serve(endpoints, b);
          }
        }
        return;
      }
      String[] names = {"granted serve", "ungranted serve", "read (granted body)", "fromHex"};
      double[][][] figures = new double[names.length][rounds][];
      for (int r = -3; r < rounds; r++) {
        List<byte[]> served = bodies(g, n);
        List<byte[]> read = bodies(g, n);
        List<String> hexes = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
          hexes.add(g.presentationHex());
        }
        double[][] f = {
          time(i -> GrantedBodies.serve(endpoints, served.get(i)), n),
          time(i -> GrantedBodies.serve(endpoints, ungranted), n),
          time(
              i ->
                  Endpoints.read(
                      read.get(i), GrantedServeRequest.Endpoint.CHAT_COMPLETIONS, 1_000_000),
              n),
          time(i -> Presentation.fromHex(hexes.get(i)), n)
        };
        if (r >= 0) {
          for (int k = 0; k < names.length; k++) {
            figures[k][r] = f[k];
          }
        }
      }
      System.out.printf(
          Locale.ROOT,
          "%d rounds of %d, a chain of %d link(s); median of per-round means (min-max)%n",
          rounds,
          n,
          links);
      for (int k = 0; k < names.length; k++) {
        System.out.printf(
            Locale.ROOT,
            "%-20s %s CPU ns/op  %s B/op%n",
            names[k],
            median(figures[k], 0),
            median(figures[k], 1));
      }
    }
  }

  private static List<byte[]> bodies(GrantedBodies g, int n) throws Exception {
    List<byte[]> out = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      out.add(g.next());
    }
    return out;
  }

  private static String median(double[][] rounds, int which) {
    double[] v = new double[rounds.length];
    for (int i = 0; i < v.length; i++) {
      v[i] = rounds[i][which];
    }
    Arrays.sort(v);
    return String.format(Locale.ROOT, "%8.0f (%.0f-%.0f)", v[v.length / 2], v[0], v[v.length - 1]);
  }
}
