package org.meshjava.steward;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The serves a steward has admitted and not yet finished, so that {@link Steward#close()} can let
 * them finish before it closes the journal. A serve cut by the close would have run its engine for
 * nothing, and a granted one, its authorisation journalled but not its debit, would come back after
 * a restart held at its whole joule ceiling (§2.2).
 *
 * <p>Admission and closing are decided under one lock, so a serve is either admitted before the
 * close (and waited for) or refused after it: none slips in between. A serve on the thread that
 * closes (an engine or listener closing its own steward) is not waited for, since it cannot finish
 * before the close returns; nor is one whose engine, on its own thread under a deadline, closes it.
 * Thread-safe.
 */
final class InFlightServes {
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition finished = lock.newCondition();

  /**
   * How many admitted serves each thread is inside. An engine's own thread (under an engine
   * deadline) shares the count of the serving thread it works for, so it is inside that serve too.
   */
  private final ThreadLocal<AtomicInteger> ownDepth = ThreadLocal.withInitial(AtomicInteger::new);

  private int count;
  private boolean closing;

  /** Admits a serve; false once closing has begun, when the serve must do no work. */
  boolean enter() {
    lock.lock();
    try {
      if (closing) {
        return false;
      }
      count++;
      ownDepth.get().incrementAndGet();
      return true;
    } finally {
      lock.unlock();
    }
  }

  /** Ends a serve {@link #enter} admitted, whichever way it ended. */
  void exit() {
    lock.lock();
    try {
      count--;
      ownDepth.get().decrementAndGet();
      if (count == 0) {
        finished.signalAll();
      }
    } finally {
      lock.unlock();
    }
  }

  /**
   * Admits no more serves and waits, for at most {@code grace}, until those admitted (other than
   * this thread's own) have finished. An interrupt ends the wait early and is kept set.
   *
   * @return how many serves are still in flight when it stops waiting, this thread's own included
   */
  int close(Duration grace) {
    lock.lock();
    try {
      closing = true;
      long left = grace.toNanos();
      int own = ownDepth.get().get();
      while (count > own && left > 0) {
        left = finished.awaitNanos(left);
      }
      return count;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return count;
    } finally {
      lock.unlock();
    }
  }

  /** Whether this thread is inside a serve that {@link #enter} admitted and that has not exited. */
  boolean servingOnThisThread() {
    return ownDepth.get().get() > 0;
  }

  /**
   * Wraps work that another thread does for the serves this thread is inside (an engine call run on
   * a thread of its own under a deadline): that thread counts as inside them while they last, so an
   * engine that closes its own steward from there is not waited for, as on the serving thread.
   */
  Runnable onBehalfOfThisThread(Runnable work) {
    AtomicInteger depth = ownDepth.get();
    return () -> {
      ownDepth.set(depth);
      try {
        work.run();
      } finally {
        ownDepth.remove();
      }
    };
  }

  /** The longest grace {@link #close} can count: {@code Long.MAX_VALUE} nanoseconds. */
  static final Duration LONGEST_GRACE = Duration.ofNanos(Long.MAX_VALUE);

  /** How long {@link Steward#close()} waits by default: as long as {@code mesh serve}'s grace. */
  static final Duration DEFAULT_GRACE = Duration.ofSeconds(30);
}
