package org.meshjava.steward;

import java.util.List;
import java.util.function.Predicate;
import org.meshjava.journal.InMemoryJournal;
import org.meshjava.journal.Journal;
import org.meshjava.journal.JournalEntry;
import org.meshjava.journal.JournalException;
import org.meshjava.journal.JournalRecord;

/**
 * A {@link Journal} test double that records like {@link InMemoryJournal} until the first entry its
 * trigger matches, fails that append (when queued, or when awaited), and from then on fails every
 * append, as a {@code FileJournal} does after a failed write (§2.2). Test support only.
 */
final class FailingJournal implements Journal {
  /** Where the triggering append fails. */
  enum When {
    /** {@link #enqueue} throws: the record never gets a place. */
    ENQUEUE,
    /** {@link Pending#await()} throws: the record got a place but never reached storage. */
    AWAIT
  }

  private final InMemoryJournal inner = new InMemoryJournal();
  private final Predicate<JournalEntry> trigger;
  private final When when;
  private volatile boolean failed;

  FailingJournal(Predicate<JournalEntry> trigger, When when) {
    this.trigger = trigger;
    this.when = when;
  }

  /** Fails the first append of an entry of {@code type}, and every append after it. */
  static FailingJournal on(Class<? extends JournalEntry> type, When when) {
    return new FailingJournal(type::isInstance, when);
  }

  boolean failed() {
    return failed;
  }

  /** What was recorded before the failure. */
  List<JournalRecord> records() {
    return inner.records();
  }

  @Override
  public List<JournalRecord> recovered() {
    return List.of();
  }

  @Override
  public synchronized Pending enqueue(JournalEntry entry) throws JournalException {
    if (failed) {
      throw failure("an earlier write failed");
    }
    if (!trigger.test(entry)) {
      return inner.enqueue(entry);
    }
    failed = true;
    if (when == When.ENQUEUE) {
      throw failure("the write failed");
    }
    JournalRecord placed = new InMemoryJournal().enqueue(entry).record();
    return new Pending() {
      @Override
      public JournalRecord record() {
        return placed;
      }

      @Override
      public void await() throws JournalException {
        throw failure("the sync failed");
      }
    };
  }

  private static JournalException failure(String why) {
    return new JournalException(JournalException.Reason.FAILED, "test double: " + why, null);
  }

  @Override
  public boolean durable() {
    return true;
  }

  @Override
  public java.util.Optional<String> refusesAppends() {
    return failed
        ? java.util.Optional.of("test double: an earlier write failed")
        : java.util.Optional.empty();
  }

  @Override
  public String describe() {
    return "failing test journal";
  }

  @Override
  public void close() {
    inner.close();
  }
}
