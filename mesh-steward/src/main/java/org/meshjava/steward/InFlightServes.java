package org.meshjava.steward;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.List;
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
   * The admitted serves each thread is inside, innermost first; each is marked ended (under {@link
   * #lock}) when it exits, so an engine's thread that works for it ({@link #onBehalfOfThisThread})
   * stops counting it as its own then, even though the engine goes on.
   */
  private final ThreadLocal<ArrayDeque<Serve>> own = ThreadLocal.withInitial(ArrayDeque::new);

  /** The serves an engine's own thread works for: those of the thread that started it. */
  private final ThreadLocal<List<Serve>> workingFor = ThreadLocal.withInitial(List::of);

  /** One admitted serve; {@code ended} is read and written under {@link #lock}. */
  private static final class Serve {
    boolean ended;
  }

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
      own.get().push(new Serve());
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
      own.get().pop().ended = true;
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
      int ownServes = insideHere();
      while (count > ownServes && left > 0) {
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
    lock.lock();
    try {
      return insideHere() > 0;
    } finally {
      lock.unlock();
    }
  }

  /** How many unfinished serves this thread is inside, its own and those it works for; locked. */
  private int insideHere() {
    int n = own.get().size();
    for (Serve s : workingFor.get()) {
      if (!s.ended) {
        n++;
      }
    }
    return n;
  }

  /**
   * Wraps work that another thread does for the serves this thread is inside (an engine call run on
   * a thread of its own under a deadline): that thread counts as inside them while they last, so an
   * engine that closes its own steward from there is not waited for, as on the serving thread. Once
   * they end (an engine that overran goes on past its serve) it is inside none of them, whatever
   * this thread serves next.
   */
  Runnable onBehalfOfThisThread(Runnable work) {
    List<Serve> serves = List.copyOf(own.get());
    return () -> {
      workingFor.set(serves);
      try {
        work.run();
      } finally {
        workingFor.remove();
      }
    };
  }

  /** The longest grace {@link #close} can count: {@code Long.MAX_VALUE} nanoseconds. */
  static final Duration LONGEST_GRACE = Duration.ofNanos(Long.MAX_VALUE);

  /** How long {@link Steward#close()} waits by default: as long as {@code mesh serve}'s grace. */
  static final Duration DEFAULT_GRACE = Duration.ofSeconds(30);
}
