package org.meshjava.energy;

import java.util.Objects;
import java.util.function.Predicate;

/**
 * Retries, at discovery, a counter's call that failed with a condition of the moment ({@link
 * CounterIssue#READ_FAILED}), within one time budget per discovery: NVML's initialisation, its
 * calls that find and name the boards (count, handle by index, UUID, PCI location, MIG mode) and
 * the one that gives a board's power bound (limit constraints), and a RAPL zone's first read.
 *
 * <p>Design note. A counter whose energy read fails later is demoted and re-probed, and an NVML
 * board whose first energy read fails is kept for those re-probes; but a failure before the counter
 * exists leaves nothing to keep (no handle, no UUID to bind {@code gpu:n} by), and a RAPL zone's
 * first value is what the mirror and range checks of discovery are made on, so a single {@code
 * NOT_READY} from NVML or {@code EIO} from {@code energy_uj} at start, refused, would lose the
 * counter for the life of the process. Rediscovery later was weighed and left (mesh-energy's
 * README, "Discovery looks once"): the retry is spent here, before the meter exists, so no window
 * is open across it, and every counter it brings in still has to pass the meter's first probe to
 * grade anything {@code HwShunt}. Only {@link CounterIssue#READ_FAILED} is retried: for NVML the
 * codes {@link NvmlLibrary} classes as momentary, for RAPL a read that failed after the file opened
 * ({@link RaplChannel#readRaw}); {@code NOT_SUPPORTED}, {@code GPU_IS_LOST}, {@code
 * DRIVER_NOT_LOADED}, {@code NO_PERMISSION}, a missing library, a denied or missing file fail at
 * once. The budget bounds how long a start can wait for a driver that never answers.
 */
final class MomentaryRetry {
  /**
   * The wait after the first failure; each later wait doubles, up to {@link #LONGEST_WAIT_NANOS}.
   */
  static final long FIRST_WAIT_NANOS = 50_000_000L;

  /** The longest single wait between two tries. */
  static final long LONGEST_WAIT_NANOS = 400_000_000L;

  /**
   * The most time one source's discovery spends waiting on momentary failures, all its calls
   * together: about the length of NVML's own probe (1.5 s), which a host with a GPU spends at every
   * start anyway.
   */
  static final long BUDGET_NANOS = 2_000_000_000L;

  /**
   * The most tries one RAPL file's read gets ({@link #forSysfs}): an {@code EIO} of the moment (an
   * MSR read that failed once) answers within milliseconds, and four tries span 350 ms. Without a
   * cap, one zone whose file fails for good spent the whole budget, and a passing failure of any
   * zone after it was refused at its first try, that zone lost until a restart.
   */
  static final int SYSFS_TRIES = 4;

  private final ProbeClock clock;
  private final long deadlineNanos;
  private final int triesPerCall;

  /** One call of a counter, which may fail. */
  @FunctionalInterface
  interface Call<T> {
    T run() throws CounterException;
  }

  /** A budget of {@link #BUDGET_NANOS} from now on {@code clock}. */
  MomentaryRetry(ProbeClock clock) {
    this(clock, Integer.MAX_VALUE);
  }

  private MomentaryRetry(ProbeClock clock, int triesPerCall) {
    this.clock = Objects.requireNonNull(clock, "clock");
    this.deadlineNanos = clock.nanoTime() + BUDGET_NANOS;
    this.triesPerCall = triesPerCall;
  }

  /**
   * A budget of {@link #BUDGET_NANOS} from now, each call tried at most {@link #SYSFS_TRIES} times:
   * for the many small reads of a powercap tree, where one file failing for good must leave the
   * budget to the others. NVML's calls keep the whole budget each (a board answers {@code
   * NOT_READY} for seconds while it starts).
   */
  static MomentaryRetry forSysfs(ProbeClock clock) {
    return new MomentaryRetry(clock, SYSFS_TRIES);
  }

  /**
   * Runs {@code call}, again after a wait while it fails with a condition of the moment and the
   * budget allows; the last failure is thrown, saying how often it was tried.
   */
  <T> T call(Call<T> call) throws CounterException {
    return call(call, e -> e.issue() == CounterIssue.READ_FAILED);
  }

  /**
   * Runs {@code call}, again after a wait while it fails with an exception {@code momentary}
   * accepts, the budget allows and the thread is not interrupted; the last failure is thrown,
   * saying how often it was tried.
   */
  <T> T call(Call<T> call, Predicate<CounterException> momentary) throws CounterException {
    long wait = FIRST_WAIT_NANOS;
    long firstTryNanos = clock.nanoTime();
    for (int tries = 1; ; tries++) {
      try {
        return call.run();
      } catch (CounterException e) {
        long now = clock.nanoTime();
        // An interrupted thread's wait returns at once, and the loop would call the failing
        // function back to back until the budget ran out: a start being cancelled stops here.
        if (!momentary.test(e)
            || tries >= triesPerCall
            || now + wait > deadlineNanos
            || Thread.currentThread().isInterrupted()) {
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
            + " ms; not metered until the process restarts once it answers",
        last);
  }
}
