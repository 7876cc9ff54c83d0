package org.meshjava.journal.internal;

import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * Runs a journal's storage work on a thread nobody else can interrupt, and waits for it without
 * giving up: an interrupt of the calling thread (a cancelled {@code Future}, an executor's {@code
 * shutdownNow}, a container's request timeout) is kept for the caller and never reaches the I/O.
 *
 * <p>Design note. A {@link java.nio.channels.FileChannel} is an interruptible channel: an operation
 * on it by a thread whose interrupt is set, or that is interrupted during it, throws {@code
 * ClosedByInterruptException} and <em>closes the channel</em>. For the file journal that channel is
 * the one descriptor its OS lock is held through, so one interrupted serve would fail the journal
 * for every later serve and let a second process lock and write it while this one still runs.
 * Socket I/O on a virtual thread is interruptible the same way (the socket is closed), and the
 * PostgreSQL journal's session is what holds its advisory lock. Clearing the interrupt before the
 * I/O does not help: another thread can interrupt during it. So the I/O runs on a thread of this
 * class's own pool, which no code outside this class ever sees, and the caller waits for it to end
 * whatever interrupts it meanwhile, then has its interrupt set again. The wait is as long as the
 * I/O, which the journal's durability needs anyway: giving up early would leave a write half done
 * with no thread left to account for it.
 *
 * <p>The pool's threads are platform daemon threads, reused while work keeps coming and ended after
 * {@link #IDLE} without any; the pool is never shut down, so nothing ever interrupts them. A fresh
 * virtual thread per call was tried first: blocking file I/O on a virtual thread makes its
 * scheduler bring up a compensating carrier, which cost 30 to 70 µs of CPU per write and sync here,
 * against 10 to 20 µs for the hand-off to a waiting platform thread (mesh-bench/README.md). The
 * pool grows as calls overlap (one may run inside another: a snapshot written during a read), so no
 * call waits for a thread.
 *
 * <p>Thread-safe; its only state is the pool.
 */
public final class JournalIo {
  /** How long an I/O thread waits for more work before it ends. */
  static final Duration IDLE = Duration.ofSeconds(30);

  private static final ExecutorService POOL =
      new ThreadPoolExecutor(
          0,
          Integer.MAX_VALUE,
          IDLE.toNanos(),
          TimeUnit.NANOSECONDS,
          new SynchronousQueue<>(),
          Thread.ofPlatform().daemon().name("mesh-journal-io-", 0).factory());

  /** Set on the pool's threads, which only this class runs work on and nobody else interrupts. */
  private static final ThreadLocal<Boolean> ON_ITS_THREAD = ThreadLocal.withInitial(() -> false);

  private JournalIo() {}

  /**
   * Whether the calling thread is one of this class's I/O threads: one that no caller's interrupt
   * reaches, so a channel another holder locks through may be read on it (a read interrupted on any
   * other thread closes the channel, and with it that holder's lock).
   */
  public static boolean onItsThread() {
    return ON_ITS_THREAD.get();
  }

  /**
   * Storage work that returns a value or throws {@code X}.
   *
   * @param <X> the checked exception it throws: the journal's, or the snapshot store's
   */
  @FunctionalInterface
  public interface Work<T, X extends Exception> {
    /** Does the work. */
    T run() throws X;
  }

  /** Storage work that returns nothing. */
  @FunctionalInterface
  public interface Action<X extends Exception> {
    /** Does the work. */
    void run() throws X;
  }

  /**
   * Runs {@code work} on a thread of its own and returns its value; the calling thread's interrupt,
   * set before or during the work, is set again when this returns or throws.
   *
   * @throws X what {@code work} throws; a runtime exception or error it throws is thrown as it is
   */
  public static <T, X extends Exception> T call(Work<T, X> work) throws X {
    Outcome<T, X> outcome = new Outcome<>();
    // Cleared for the wait below (get would otherwise throw at once, for ever), set again after.
    boolean interrupted = Thread.interrupted();
    Future<?> io =
        POOL.submit(
            () -> {
              ON_ITS_THREAD.set(Boolean.TRUE);
              outcome.run(work);
            });
    while (true) {
      try {
        io.get();
        break;
      } catch (InterruptedException e) {
        interrupted = true;
      } catch (ExecutionException e) {
        // outcome.run catches every Throwable, so the task itself never fails
        throw new IllegalStateException("journal I/O task failed outside its work", e.getCause());
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
    return outcome.get();
  }

  /** {@link #call} for work that returns nothing. */
  public static <X extends Exception> void run(Action<X> action) throws X {
    JournalIo.<Boolean, X>call(
        () -> {
          action.run();
          return Boolean.TRUE;
        });
  }

  /** What the work returned or threw; written by the I/O thread, read after joining it. */
  private static final class Outcome<T, X extends Exception> {
    private @Nullable T value;
    private @Nullable Throwable thrown;

    void run(Work<T, X> work) {
      try {
        value = work.run();
      } catch (Throwable t) {
        thrown = t;
      }
    }

    @SuppressWarnings({
      "NullAway", // set by the work unless it threw, which is checked first
      "unchecked" // the work throws X or unchecked exceptions only, so a checked one is an X
    })
    T get() throws X {
      Throwable t = thrown;
      if (t == null) {
        return value;
      }
      switch (t) {
        case RuntimeException e -> throw e;
        case Error e -> throw e;
        default -> throw (X) t;
      }
    }
  }
}
