package org.meshjava.energy;

import java.util.Objects;

/**
 * Retries the NVML calls that find and name the boards (count, handle by index, UUID, PCI location,
 * MIG mode) through a condition of the moment, within one time budget per discovery.
 *
 * <p>Design note. A board is kept through a momentary failure of its first energy read because the
 * meter already holds it as a counter and its re-probes look again; a failure of the calls that
 * find the board leaves nothing to hold (no handle, no UUID to bind {@code gpu:n} by), so one
 * {@code NVML_ERROR_TIMEOUT} or {@code NOT_READY} at start lost NVML for the life of the process.
 * Rediscovery later was weighed and left (README, "Discovery looks once"): the retry is spent here,
 * before the meter exists, so no window is open across it and every board it brings in still has to
 * pass the meter's first probe to grade anything {@code HwShunt}. Only {@link
 * CounterIssue#READ_FAILED} is retried, the codes {@link NvmlLibrary} classes as momentary; {@code
 * NOT_SUPPORTED}, {@code GPU_IS_LOST}, a missing library or a setup error fail at once. The budget
 * bounds how long a start can wait for a driver that never answers.
 */
final class NvmlMomentaryRetry {
  /**
   * The wait after the first failure; each later wait doubles, up to {@link #LONGEST_WAIT_NANOS}.
   */
  static final long FIRST_WAIT_NANOS = 50_000_000L;

  /** The longest single wait between two tries. */
  static final long LONGEST_WAIT_NANOS = 400_000_000L;

  /**
   * The most time one discovery spends waiting on momentary failures, all calls together: about the
   * length of NVML's own probe (1.5 s), which a host with a GPU spends at every start anyway.
   */
  static final long BUDGET_NANOS = 2_000_000_000L;

  private final ProbeClock clock;
  private final long deadlineNanos;

  /** One NVML call, which may fail. */
  @FunctionalInterface
  interface Call<T> {
    T run() throws CounterException;
  }

  /** A budget of {@link #BUDGET_NANOS} from now on {@code clock}. */
  NvmlMomentaryRetry(ProbeClock clock) {
    this.clock = Objects.requireNonNull(clock, "clock");
    this.deadlineNanos = clock.nanoTime() + BUDGET_NANOS;
  }

  /**
   * Runs {@code call}, again after a wait while it fails with a condition of the moment and the
   * budget allows; the last failure is thrown, saying how often it was tried.
   */
  <T> T call(Call<T> call) throws CounterException {
    long wait = FIRST_WAIT_NANOS;
    long firstTryNanos = clock.nanoTime();
    for (int tries = 1; ; tries++) {
      try {
        return call.run();
      } catch (CounterException e) {
        long now = clock.nanoTime();
        if (e.issue() != CounterIssue.READ_FAILED || now + wait > deadlineNanos) {
          throw tries == 1 ? e : gaveUp(e, tries, now - firstTryNanos);
        }
        clock.idleUntil(now + wait);
        wait = Math.min(2 * wait, LONGEST_WAIT_NANOS);
      }
    }
  }

  private static CounterException gaveUp(CounterException last, int tries, long spentNanos) {
    return new CounterException(
        last.issue(),
        last.getMessage()
            + ", still after "
            + tries
            + " tries over "
            + spentNanos / 1_000_000
            + " ms; the board is not metered until the process restarts once NVML answers",
        last);
  }
}
