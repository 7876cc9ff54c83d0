package org.meshjava.journal.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.meshjava.journal.Journal;
import org.meshjava.journal.JournalEntry;
import org.meshjava.journal.JournalException;
import org.meshjava.journal.JournalRecord;

/**
 * Leader/follower group commit, shared by the file and PostgreSQL journals: an entry is given its
 * place in the journal's chain and queued under one lock, so the queue's order is the chain's, and
 * a waiter returns once its record is durable. It also holds the journal's open/closed state, so
 * both journals refuse an append to a closed or failed journal in the same words.
 *
 * <p>Design note. One waiter at a time leads: it takes every queued record and hands them to the
 * journal's write-and-sync {@link Step} (a file write and {@code force}; one committed insert),
 * while the other waiters sleep on one monitor and are all woken when that step completes. So
 * concurrent appends share a sync, rather than taking a lock one after another just to find their
 * record already durable, and none returns before its own record was made durable. A failed step
 * (whatever it throws, an unchecked exception or an error included) fails the journal: every record
 * not yet durable, and every later {@link #await}, throws that failure's reason. The chain function
 * runs under the append lock (its state needs no lock of its own); the journal's write-and-sync
 * step never does, so a slow sync never holds up enqueueing.
 *
 * <p>Interrupts. A waiter interrupted while another leads gives up with {@code IO} and keeps its
 * interrupt; its record stays queued, so the next step writes it (it may yet become durable). A
 * leader's step runs on a thread of its own ({@link JournalIo}), so an interrupt of the leader
 * neither breaks the step nor is lost: the leader waits for its step and returns as the step ended,
 * with its interrupt set again.
 *
 * <p>Thread-safe.
 *
 * @param <E> a journal's encoded record
 */
public final class GroupCommit<E> {
  /** A journal's write-and-sync step: makes a batch durable, in order, or throws. */
  @FunctionalInterface
  public interface Step<E> {
    /**
     * Makes {@code batch} durable, in order. Called by one leader at a time.
     *
     * @param batch the records queued since the last step, oldest first; never empty
     * @param seq the leader's own record, to name in a failure
     * @throws JournalException if the batch is not durable; the journal is then failed
     */
    void write(List<E> batch, long seq) throws JournalException;
  }

  private final String journal;
  private final Function<JournalEntry, List<E>> advance;
  private final Function<E, JournalRecord> recordOf;
  private final Step<E> step;

  /** Orders enqueueing: a record's place in the chain and in the queue are fixed together. */
  private final Object appendLock = new Object();

  // Written under appendLock; volatile so that refusesAppends, which every serve asks before any
  // work, reads it without waiting behind an enqueue.
  private volatile boolean closed;

  private final Object queueLock = new Object();
  private final List<E> queue = new ArrayList<>();
  // The sequence of the queue's last record, read when it was queued (-1 while nothing is): a step
  // takes it with the batch, so nothing is asked of a record once its batch has left the queue.
  private long queuedThrough = -1;
  // Written under queueLock; volatile for refusesAppends, as closed is.
  private volatile @Nullable JournalException failure;

  /**
   * The failure for an unchecked throw that could not be put into words, made up front since
   * nothing may be built when it is needed ({@link #failOver}).
   */
  private final JournalException wordless;

  private final Object syncMonitor = new Object();
  private boolean syncing;
  private volatile long durableThrough;

  /**
   * A group commit for a journal whose records through {@code durableThrough} are durable already.
   *
   * @param journal the journal, as its messages name it
   * @param durableThrough the last durable sequence, -1 if none
   * @param advance the journal's chain: the encoded records an entry becomes, in order, advancing
   *     the chain past them; called under the append lock only
   * @param recordOf the record an encoded record stores
   * @param step the journal's write-and-sync step
   */
  public GroupCommit(
      String journal,
      long durableThrough,
      Function<JournalEntry, List<E>> advance,
      Function<E, JournalRecord> recordOf,
      Step<E> step) {
    this.journal = Objects.requireNonNull(journal, "journal");
    this.durableThrough = durableThrough;
    this.advance = Objects.requireNonNull(advance, "advance");
    this.recordOf = Objects.requireNonNull(recordOf, "recordOf");
    this.step = Objects.requireNonNull(step, "step");
    this.wordless =
        new JournalException(
            JournalException.Reason.FAILED,
            "journal " + journal + " failed: an unchecked throw whose words could not be read",
            null);
  }

  /**
   * Fixes {@code entry}'s records in the chain and queues them: {@link Journal#enqueue}.
   *
   * @throws JournalException {@code CLOSED} once {@link #close}d; the failure's reason once failed;
   *     {@code CORRUPT} for an entry whose record would be longer than a journal reads back ({@link
   *     RecordChain.TooLong}), nothing moved and the journal going on; {@code FAILED}, failing the
   *     journal, if queueing the records threw unchecked once the chain had moved past them (an
   *     error is rethrown as it is): either way nothing was queued
   */
  public Journal.Pending enqueue(JournalEntry entry) throws JournalException {
    synchronized (appendLock) {
      if (closed) {
        throw new JournalException(
            JournalException.Reason.CLOSED, "journal " + journal + " is closed", null);
      }
      refuseIfFailed();
      // All or nothing (RecordChain's rule): a throw here moved nothing, and reaches the caller.
      List<E> records;
      try {
        records = advance.apply(entry);
      } catch (RecordChain.TooLong e) {
        // Refused typed, as a write that did not happen: the caller releases what it held for it.
        throw new JournalException(
            JournalException.Reason.CORRUPT, "journal " + journal + ": " + e.why(), e);
      }
      try {
        return add(records);
      } catch (RuntimeException | Error e) {
        // The chain has moved past records that are not queued: a later record would be written
        // after a gap the next opening refuses, so the journal fails, and says nothing was queued.
        throw failOver(e, -1, "queueing a record in");
      }
    }
  }

  /** Why an append would be refused now, if it would: {@link Journal#refusesAppends}. */
  public Optional<String> refusesAppends() {
    // No lock: a steward asks this before every serve, and an answer a moment stale is harmless,
    // since an append still checks both under its lock.
    if (closed) {
      return Optional.of("journal " + journal + " is closed");
    }
    JournalException failed = failure;
    if (failed != null) {
      return Optional.of("journal " + journal + " failed: " + failed.getMessage());
    }
    return Optional.empty();
  }

  /**
   * Runs {@code action} while no entry is being enqueued, so it may touch what the chain function
   * reads.
   */
  public void whileNoAppend(Runnable action) {
    synchronized (appendLock) {
      action.run();
    }
  }

  /**
   * Refuses every later append, then makes durable what was queued before (waiting for a step under
   * way to end first), so that the journal's owner may release its storage once this returns: no
   * step runs after it. Without this, a record whose enqueue was accepted was lost (its waiter led
   * a step on released storage and was told it failed), and a step under way when the owner
   * released its file failed part-written. Waits through interrupts, and keeps them.
   *
   * @return false if it was closed already
   */
  public boolean close() {
    return close(() -> {});
  }

  /**
   * {@link #close()}, then runs {@code release} (the owner letting go of its storage: a file's
   * lock, a database session) on the first call only, even when the last step threw an error: an
   * error is rethrown, and without this the owner's release after it was skipped, so the storage
   * stayed held (a file journal's lock, until the process ended).
   *
   * @return false if it was closed already; {@code release} is then not run
   */
  public boolean close(Runnable release) {
    synchronized (appendLock) {
      if (closed) {
        return false;
      }
      closed = true;
    }
    try {
      writeQueuedBeforeClose();
    } finally {
      release.run();
    }
    return true;
  }

  /** Leads one last step over the queue, once no other step runs; a failure fails the journal. */
  private void writeQueuedBeforeClose() {
    boolean interrupted = false;
    synchronized (syncMonitor) {
      while (syncing) {
        try {
          syncMonitor.wait();
        } catch (InterruptedException e) {
          interrupted = true;
        }
      }
      syncing = true;
    }
    long through = -1;
    try {
      if (failure() == null) {
        through = writeQueued(-1);
      }
    } catch (JournalException e) {
      // Recorded as the journal's failure by writeQueued: the waiters of the batch are told.
    } finally {
      endStep(through);
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** Whether {@link #close} was called. */
  public boolean closed() {
    synchronized (appendLock) {
      return closed;
    }
  }

  /**
   * Queues {@code records}, in chain order (the append lock orders concurrent calls). Queueing is
   * its last step: once the records are queued they will be written, so nothing may throw after it
   * and tell the caller they were not.
   */
  private Journal.Pending add(List<E> records) {
    JournalRecord last = recordOf.apply(records.getLast());
    Journal.Pending pending =
        new Journal.Pending() {
          @Override
          public JournalRecord record() {
            return last;
          }

          @Override
          public void await() throws JournalException {
            GroupCommit.this.await(last.seq());
          }
        };
    long lastSeq = last.seq();
    synchronized (queueLock) {
      queue.addAll(records);
      queuedThrough = lastSeq;
    }
    return pending;
  }

  /**
   * Refuses an append to a journal that failed.
   *
   * @throws JournalException with the failure's reason if the journal failed
   */
  public void refuseIfFailed() throws JournalException {
    JournalException failed = failure();
    if (failed != null) {
      throw new JournalException(
          failed.reason(),
          "journal " + journal + " failed earlier: " + failed.getMessage(),
          failed);
    }
  }

  /**
   * Records {@code f} as the journal's failure unless one is recorded already, and wakes every
   * waiter to see it.
   *
   * @return the failure recorded: {@code f}, or the earlier one
   */
  public JournalException fail(JournalException f) {
    JournalException recorded;
    synchronized (queueLock) {
      if (failure == null) {
        failure = f;
      }
      recorded = failure;
    }
    synchronized (syncMonitor) {
      syncMonitor.notifyAll();
    }
    return recorded;
  }

  /**
   * Fails the journal {@code FAILED} over {@code e}, an unchecked throw while {@code doing} it
   * (naming record {@code seq}, or none if -1): an error is rethrown as it is, anything else
   * answered with the failure to throw. Putting {@code e} into words may itself throw (a message
   * that cannot be built, the heap still full): the journal then fails with {@link #wordless}, for
   * a journal left running over records the chain has moved past would write the next after a gap.
   */
  private JournalException failOver(Throwable e, long seq, String doing) {
    JournalException f;
    try {
      f =
          new JournalException(
              JournalException.Reason.FAILED,
              seq,
              doing + " journal " + journal + " failed: " + e,
              e);
    } catch (RuntimeException | Error describing) {
      f = wordless;
    }
    fail(f);
    if (e instanceof Error error) {
      throw error;
    }
    return f;
  }

  /** The journal's failure, if it failed. */
  public @Nullable JournalException failure() {
    synchronized (queueLock) {
      return failure;
    }
  }

  /**
   * Returns once record {@code seq} is durable, leading a step if no other waiter is.
   *
   * @throws JournalException with the failure's reason if the journal failed first, or {@code IO}
   *     if interrupted while another waiter leads (the record stays queued, so it may still become
   *     durable: see {@link Journal.Pending#awaitUninterruptibly})
   */
  public void await(long seq) throws JournalException {
    while (durableThrough < seq) {
      synchronized (syncMonitor) {
        while (true) {
          if (durableThrough >= seq) {
            return;
          }
          JournalException failed = failure();
          if (failed != null) {
            throw new JournalException(
                failed.reason(),
                seq,
                "not written: journal " + journal + " failed: " + failed.getMessage(),
                failed);
          }
          if (!syncing) {
            syncing = true;
            break;
          }
          try {
            syncMonitor.wait();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new JournalException(
                JournalException.Reason.IO,
                seq,
                "interrupted while waiting for journal " + journal + " to sync",
                e);
          }
        }
      }
      long through = -1;
      try {
        through = writeQueued(seq);
      } finally {
        endStep(through);
      }
    }
  }

  /**
   * Ends the running step, durable through {@code through} (-1 if it wrote nothing), waking all.
   */
  private void endStep(long through) {
    synchronized (syncMonitor) {
      syncing = false;
      if (through > durableThrough) {
        durableThrough = through;
      }
      syncMonitor.notifyAll();
    }
  }

  /**
   * Hands every queued record to the step; returns the last sequence now durable. Leader only.
   *
   * @param seq the leader's own record, which a failure names; -1 for the close's step, whose
   *     failure names the batch's last record
   */
  private long writeQueued(long seq) throws JournalException {
    List<E> batch;
    long through;
    synchronized (queueLock) {
      batch = new ArrayList<>(queue);
      through = queuedThrough;
      queue.clear();
    }
    if (batch.isEmpty()) {
      return durableThrough;
    }
    // The batch's last sequence was read when it was queued: asking recordOf again here, once the
    // batch has left the queue, could throw and drop it unwritten (the close's step) or leave a
    // written batch uncounted, its waiters leading again over an empty queue.
    long named = seq >= 0 ? seq : through;
    try {
      // Off the leader's thread: an interrupt of whichever serve leads must not reach the I/O
      // (JournalIo's design note); the leader waits for it and keeps its interrupt.
      JournalIo.run(() -> step.write(batch, named));
    } catch (JournalException e) {
      fail(e);
      throw e;
    } catch (RuntimeException | Error e) {
      // The batch has left the queue: unless the journal fails, a waiter of it leads again, finds
      // the queue empty or holding later records only, writes those past the lost ones and counts
      // its own as durable. So whatever the step throws fails the journal; an error stays an error.
      throw failOver(e, named, "write to");
    }
    return through;
  }
}
