package org.meshjava.core;

/**
 * How many serves an engine that computes on this host's CPU takes at once: those it runs ({@link
 * ServingEngine#maxConcurrentServes()}) and those that may wait for it ({@link
 * ServingEngine#maxWaitingServes()}). A steward refuses a serve beyond both ({@code BACKEND_BUSY},
 * HTTP 429 with {@code Retry-After}) before any grant is decided.
 *
 * <p>A CPU-bound engine gains nothing from more serves in flight than there are cores: they share
 * the cores and each one takes longer. {@link #cpuDefault()} therefore runs as many as this JVM has
 * processors (at least 2) and lets any number wait, so that code embedding a steward is never
 * refused; {@code mesh serve} sets the waiting bound to 64 unless configured (SPEC 70).
 *
 * @param maxConcurrentServes serves run at once, at least 1
 * @param maxWaitingServes serves that may wait beyond those, at least 0; {@link #UNBOUNDED} for no
 *     bound
 */
public record ServeConcurrency(int maxConcurrentServes, int maxWaitingServes) {
  /** No bound on waiting serves. */
  public static final int UNBOUNDED = Integer.MAX_VALUE;

  /** Validates the bounds. */
  public ServeConcurrency {
    if (maxConcurrentServes < 1) {
      throw new IllegalArgumentException(
          "max_concurrent_serves must be at least 1: " + maxConcurrentServes);
    }
    if (maxWaitingServes < 0) {
      throw new IllegalArgumentException(
          "max_waiting_serves must not be negative: " + maxWaitingServes);
    }
  }

  /** The CPU count of this JVM, at least 2: the default number of serves a CPU engine runs. */
  public static int cores() {
    return Math.max(2, Runtime.getRuntime().availableProcessors());
  }

  /** {@link #cores()} at once, any number waiting. */
  public static ServeConcurrency cpuDefault() {
    return new ServeConcurrency(cores(), UNBOUNDED);
  }

  /** The same running bound with {@code v} waiting. */
  public ServeConcurrency withMaxWaitingServes(int v) {
    return new ServeConcurrency(maxConcurrentServes, v);
  }

  /** {@code v} running with the same waiting bound. */
  public ServeConcurrency withMaxConcurrentServes(int v) {
    return new ServeConcurrency(v, maxWaitingServes);
  }
}
