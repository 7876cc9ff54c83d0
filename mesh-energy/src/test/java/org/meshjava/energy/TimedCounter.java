package org.meshjava.energy;

import org.meshjava.core.EnergyDomain;

/**
 * A counter that behaves in fake time as real ones do: energy accrues continuously at an idle power
 * plus whatever work the test adds, and the readable total is refreshed only every update period
 * (RAPL about every millisecond, NVML every 20 to 100 ms). {@link #freeze()} stops the refreshes (a
 * stalled counter) until {@link #thaw()}; {@link #failWith} makes reads fail.
 */
final class TimedCounter implements EnergyChannel {
  private final EnergyDomain domain;
  private final FakeClock clock;
  private long periodNanos;
  private final long idleUjPerMs;
  private final boolean slow;
  private long accruedNanoJ;
  private long published;
  private long nextPublish;
  private boolean frozen;
  private CounterException failure;
  private Runnable onRead = () -> {};
  // The hardware it stands for: its own, unless the test said it reads another's counter.
  private Object hardware = this;
  volatile boolean released;

  /**
   * @param periodMs how often the readable total is refreshed
   * @param idleUjPerMs the domain's idle draw (µJ per ms = mW)
   * @param slow whether it says it updates slowly (probed with the NVML policy)
   */
  TimedCounter(
      EnergyDomain domain, FakeClock clock, long periodMs, long idleUjPerMs, boolean slow) {
    this.domain = domain;
    this.clock = clock;
    this.periodNanos = periodMs * 1_000_000L;
    this.idleUjPerMs = idleUjPerMs;
    this.slow = slow;
    this.nextPublish = clock.nanoTime() + periodNanos;
    clock.onAdvance(this::advanced);
  }

  /** A RAPL-like counter: refreshed every millisecond, 10 mW idle. */
  static TimedCounter rapl(EnergyDomain domain, FakeClock clock) {
    return new TimedCounter(domain, clock, 1, 10, false);
  }

  private synchronized void advanced(long nanos) {
    accruedNanoJ += nanos * idleUjPerMs / 1_000; // P mW over t ns is P * t / 1000 nJ
    long now = clock.nanoTime();
    if (now >= nextPublish) {
      if (!frozen) {
        published = accruedNanoJ / 1_000;
      }
      nextPublish = now - (now - nextPublish) % periodNanos + periodNanos;
    }
  }

  /** Work a serve does: it lands in the next refresh. */
  synchronized void work(long uj) {
    accruedNanoJ += uj * 1_000;
  }

  /** Changes how often the readable total is refreshed, from the next refresh on. */
  synchronized void refreshEveryMillis(long periodMs) {
    periodNanos = periodMs * 1_000_000L;
  }

  synchronized void freeze() {
    frozen = true;
  }

  /**
   * Resumes the refreshes {@link #freeze()} stopped; the energy drawn meanwhile shows at its next
   * refresh.
   */
  synchronized void thaw() {
    frozen = false;
  }

  synchronized void failWith(CounterIssue issue) {
    failure = issue == null ? null : new CounterException(issue, "scripted failure");
  }

  /** Runs {@code hook} at every read (before the value is taken). */
  synchronized void onRead(Runnable hook) {
    this.onRead = hook;
  }

  /** The energy drawn so far, refreshed or not, in µJ. */
  synchronized long drawnUj() {
    return accruedNanoJ / 1_000;
  }

  @Override
  public String name() {
    return "timed:" + domain;
  }

  @Override
  public EnergyDomain domain() {
    return domain;
  }

  /**
   * Stands for the same hardware counter as {@code other} from now on, as a second meter's channel
   * over the same zone or board does (a test adds the same work to both); returns this.
   */
  synchronized TimedCounter sameHardwareAs(TimedCounter other) {
    hardware = other.hardware();
    return this;
  }

  @Override
  public synchronized Object hardware() {
    return hardware;
  }

  @Override
  public boolean slowUpdating() {
    return slow;
  }

  @Override
  public long readTotalUj() throws CounterException {
    Runnable hook;
    synchronized (this) {
      hook = onRead;
    }
    // A move the hook makes runs no watch read: the meter's thread would wait for this read.
    FakeClock.duringRead(hook);
    synchronized (this) {
      if (failure != null) {
        throw failure;
      }
      return published;
    }
  }

  @Override
  public void release() {
    released = true;
  }
}
