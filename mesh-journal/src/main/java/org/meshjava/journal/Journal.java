package org.meshjava.journal;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.meshjava.core.ContentId;
import org.meshjava.jcp.GrantChain;

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
     * <p>Interrupted while it waits for another caller's write, it throws {@link
     * JournalException.Reason#IO} with the interrupt set again; the record stays queued then, so it
     * may still be written, by the next append's write or a later {@code await}. A caller that must
     * know whether its record is in the journal uses {@link #awaitUninterruptibly()}.
     *
     * @throws JournalException if it could not be written (it is then not in the journal), or
     *     {@code IO} if interrupted while waiting (see above)
     */
    void await() throws JournalException;

    /**
     * Returns once the record is durable, as {@link #await()}, but waits through interrupts: the
     * record ends either durable (this returns) or not written (this throws), never undecided. An
     * interrupt, set before or during the wait, is set again when this returns or throws. The wait
     * lasts as long as the journal's write, which it does not outlast.
     *
     * @throws JournalException if it could not be written; it is then not in the journal
     */
    default void awaitUninterruptibly() throws JournalException {
      // Cleared so each await waits (an await that meets a set interrupt gives up at once).
      boolean interrupted = Thread.interrupted();
      try {
        while (true) {
          try {
            await();
            return;
          } catch (JournalException e) {
            // Interrupted, the await set the interrupt again before it threw: wait again. Any
            // other failure is final (a failed journal fails every later await the same way).
            if (!Thread.interrupted()) {
              throw e;
            }
            interrupted = true;
          }
        }
      } finally {
        if (interrupted) {
          Thread.currentThread().interrupt();
        }
      }
    }
  }

  /** Takes records one at a time, in order, as {@link #read} streams them. */
  @FunctionalInterface
  interface RecordSink {
    /** Takes the next record; throwing stops the read. */
    void accept(JournalRecord record) throws JournalException;
  }

  /**
   * The records present when the journal was opened, in order, read into one list. A steward does
   * not call this (it {@link #read streams} them, keeping only the state they build); it is for
   * tools and tests over small journals, and for journals that implement nothing else.
   *
   * @throws IllegalStateException wrapping a {@link JournalException} if the records cannot be read
   *     or do not form one chain
   */
  List<JournalRecord> recovered();

  /**
   * Every record of {@code journal}, read from genesis into one list through {@link #read}: what a
   * journal that streams its records returns from {@link #recovered()}.
   *
   * @throws IllegalStateException wrapping the {@link JournalException} the read threw
   */
  static List<JournalRecord> readAll(Journal journal) {
    List<JournalRecord> out = new java.util.ArrayList<>();
    try {
      journal.read(JournalPosition.GENESIS, new java.util.HashMap<>(), out::add);
    } catch (JournalException e) {
      throw new IllegalStateException(e.getMessage(), e);
    }
    return out;
  }

  /**
   * Streams the records from {@code from} (up to the end at the time of the call) to {@code sink},
   * in order, checking that they form one chain from that place: the first one read must carry
   * {@code from}'s hash as its {@code prev}. A restart reads from genesis, or from the position a
   * snapshot covers (§2.2). Call it before appending, or from one thread at a time alongside
   * appends (it reads only records already durable).
   *
   * <p>The default reads {@link #recovered()}.
   *
   * @param chains the grant chains recorded before {@code from}, by id (the records after it name
   *     them rather than repeat them; a snapshot carries them); the chains read are added to it
   * @throws JournalException {@code POSITION_MISMATCH} if {@code from} is beyond the journal's end
   *     or its hash is not the journal's at that place; {@code CORRUPT} naming the first record
   *     that is malformed or does not chain; {@code ARCHIVED} if the records from there on are no
   *     longer all held; {@code IO}
   */
  default void read(JournalPosition from, Map<ContentId, GrantChain> chains, RecordSink sink)
      throws JournalException {
    List<JournalRecord> all;
    try {
      all = recovered();
    } catch (IllegalStateException e) {
      if (e.getCause() instanceof JournalException je) {
        throw je;
      }
      throw e;
    }
    if (from.count() > all.size()) {
      throw new JournalException(
          JournalException.Reason.POSITION_MISMATCH,
          from + " is beyond the end of journal " + describe() + " (" + all.size() + " records)",
          null);
    }
    for (long i = from.count(); i < all.size(); i++) {
      JournalRecord r = all.get((int) i);
      if (i == from.count() && i > 0 && !r.prev().equals(from.lastHash())) {
        throw new JournalException(
            JournalException.Reason.POSITION_MISMATCH,
            i,
            "does not follow " + from + ": its prev is " + r.prev().orElseThrow(),
            null);
      }
      if (r.entry() instanceof JournalEntry.Chain c) {
        chains.put(c.id(), c.chain());
      }
      sink.accept(r);
    }
  }

  /**
   * Checks the records before {@code count} that this journal still holds where {@link #read} from
   * genesis cannot reach them, its first records archived without their segments ({@code
   * ARCHIVED}): a start from a snapshot covering {@code count} records checks them this way instead
   * (SPEC.md §60.8, "The records a snapshot covers"). The default holds none such and checks
   * nothing.
   *
   * @throws JournalException {@code CORRUPT} naming the first record that does not chain
   */
  default void checkHeldLinksBefore(long count) throws JournalException {}

  /**
   * Warns in the log when some of the records before {@code count}, which a snapshot covers, are
   * held nowhere while later archived ones are: the first of the journal's archived segments
   * removed and later ones kept (SPEC.md §60.8, "Segments"). Lawful, as an operator may remove what
   * a snapshot covers, but worth saying, since only the snapshot stands for those records now.
   * Reads no record (a listing at most), so a start from a snapshot of any size says it, not only
   * one that checks the records it covers. The default keeps no segments and says nothing.
   *
   * @throws JournalException {@code IO} if the segments cannot be listed
   */
  default void warnFirstSegmentsMissingBefore(long count) throws JournalException {}

  /**
   * Where the journal ends now: every record enqueued so far that is durable, and the hash of the
   * last. What a snapshot taken now covers.
   *
   * @throws UnsupportedOperationException if this journal cannot tell (the default), so it takes no
   *     snapshots
   */
  default JournalPosition position() {
    throw new UnsupportedOperationException(describe() + " does not report its position");
  }

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

  /**
   * The journal that stores this one's records: itself, or, for a decorator ({@link
   * ForwardingJournal}), the storage of the journal it decorates. A steward claims the storage, so
   * that two stewards handed one journal through different decorators are refused as two handed the
   * same journal are; a decorator that stores records itself returns itself.
   */
  default Journal storage() {
    return this;
  }

  /**
   * Releases the journal (and, for a file journal, its lock). Appends are refused from the moment
   * it begins; a record queued before it is made durable (or fails the journal) before its storage
   * is let go, so its {@link Pending} is answered as for any other write, and no write runs after
   * this returns. May be called from any thread, while other threads append and wait.
   */
  @Override
  void close();
}
