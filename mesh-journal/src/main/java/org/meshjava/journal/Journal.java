package org.meshjava.journal;

import java.util.List;
import java.util.Optional;

/**
 * The steward's decision journal (§2.2): an append-only chain of records that makes grant spend and
 * the receipt chain survive a restart.
 *
 * <p>Appending is two-step so that a caller can fix a record's place in the chain while it holds
 * its own lock (the receipt log's, say) and wait for storage outside it, letting concurrent appends
 * share one sync: {@link #enqueue} assigns the sequence and chains the record; {@link
 * Pending#await()} returns once that record is durable. No append returns before its own bytes are
 * on storage. After a failed write the journal takes no more appends ({@link
 * JournalException.Reason#FAILED}) until it is reopened.
 *
 * <p>Implementations are thread-safe.
 */
public interface Journal extends AutoCloseable {

  /** A record whose place is fixed and whose durability can be awaited. */
  interface Pending {
    /** The record as it will be stored. */
    JournalRecord record();

    /**
     * Returns once the record is durable.
     *
     * @throws JournalException if it could not be written; it is then not in the journal
     */
    void await() throws JournalException;
  }

  /** The records present when the journal was opened, in order: what a restart replays. */
  List<JournalRecord> recovered();

  /**
   * Fixes the next record's place and queues it for storage.
   *
   * @throws JournalException if the journal is closed or has failed
   */
  Pending enqueue(JournalEntry entry) throws JournalException;

  /** Appends and waits until the record is durable. */
  default JournalRecord append(JournalEntry entry) throws JournalException {
    Pending p = enqueue(entry);
    p.await();
    return p.record();
  }

  /** Whether records survive the process (false for an in-memory journal). */
  boolean durable();

  /** A short description for errors and logs: the file path, or "in-memory". */
  String describe();

  /**
   * Why the journal takes no more appends, if it does not: it is closed, or a write failed. A
   * health check reads it (a steward's readiness); the default says nothing is wrong.
   */
  default Optional<String> refusesAppends() {
    return Optional.empty();
  }

  /**
   * Whether the journal holds an exclusive lock on its storage right now, so that no other steward
   * can append to it. The default is false: an in-memory journal has nothing to lock.
   */
  default boolean locked() {
    return false;
  }

  /** Releases the journal (and, for a file journal, its lock). */
  @Override
  void close();
}
