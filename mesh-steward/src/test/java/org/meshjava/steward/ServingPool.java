package org.meshjava.steward;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An application's pool serving on one steward for a stress test of a lifecycle seam: each thread
 * serves one request after another until its first refusal, and all start together, lined up on a
 * barrier with the test's thread. Test support only.
 */
final class ServingPool {
  /** One round of a stress test, numbered from 0. */
  @FunctionalInterface
  interface Round {
    void run(int round) throws Exception;
  }

  /** Serve number {@code i} of thread {@code thread}; a refusal ends that thread. */
  @FunctionalInterface
  interface Serve {
    ServeResult serve(int thread, int i) throws Exception;
  }

  final ConcurrentLinkedQueue<ServeResult> handedOut = new ConcurrentLinkedQueue<>();
  final ConcurrentLinkedQueue<ServeException> refused = new ConcurrentLinkedQueue<>();
  private final AtomicInteger sealed = new AtomicInteger();
  private final List<Future<?>> threads = new ArrayList<>();
  private final ExecutorService pool;

  private ServingPool(int count) {
    pool = Executors.newFixedThreadPool(count);
  }

  /**
   * Serves on {@code s} that alternate, per thread, between a grant on {@code chain} (even serves)
   * and none (odd ones), each request named by {@code name}, the thread and the serve.
   */
  static Serve halfGranted(
      GrantFixture f, Steward s, org.meshjava.jcp.GrantChain chain, String name, long ceilingUj) {
    return (thread, i) -> {
      org.meshjava.core.ServeRequest req =
          GrantFixture.request(name + "/" + thread + "/" + i, 4, ceilingUj);
      return i % 2 == 0
          ? s.serve(req, GrantFixture.payload(req), f.present(chain, req))
          : s.serve(req, GrantFixture.payload(req));
    };
  }

  /** The joules the granted receipts handed out so far debited, together. */
  long grantedJoules() {
    return handedOut.stream()
        .filter(r -> r.receipt().grantId().isPresent())
        .mapToLong(r -> r.receipt().energy().uj())
        .sum();
  }

  /** Runs {@code round} {@code rounds} times, each on a fresh steward of its own making. */
  static void rounds(int rounds, Round round) throws Exception {
    for (int r = 0; r < rounds; r++) {
      round.run(r);
    }
  }

  /** Starts {@code count} serving threads; returns once all are released. */
  static ServingPool start(int count, Serve serve) throws Exception {
    return start(count, Integer.MAX_VALUE, serve);
  }

  /**
   * Starts {@code count} serving threads that each end after {@code serves} receipts, or at their
   * first refusal; returns once all are released.
   */
  static ServingPool start(int count, int serves, Serve serve) throws Exception {
    ServingPool p = new ServingPool(count);
    CyclicBarrier start = new CyclicBarrier(count + 1);
    for (int t = 0; t < count; t++) {
      int thread = t;
      p.threads.add(
          p.pool.submit(
              () -> {
                start.await();
                for (int i = 0; i < serves; i++) {
                  try {
                    p.handedOut.add(serve.serve(thread, i));
                    p.sealed.incrementAndGet();
                  } catch (ServeException e) {
                    p.refused.add(e);
                    return null;
                  }
                }
                return null;
              }));
    }
    start.await();
    return p;
  }

  /**
   * Waits (30 s at most) until {@code n} receipts were handed out, so the seam meets live serves.
   */
  void awaitSealed(int n) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (sealed.get() < n && System.nanoTime() < deadline) {
      Thread.onSpinWait();
    }
  }

  /**
   * Waits for every thread to end (30 s each at most: none may hang), then stops the pool; rethrows
   * what a thread threw other than a refusal.
   */
  void end() throws Exception {
    try {
      for (Future<?> each : threads) {
        each.get(30, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
  }
}
