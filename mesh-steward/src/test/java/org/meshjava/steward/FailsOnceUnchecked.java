package org.meshjava.steward;

import java.util.concurrent.atomic.AtomicBoolean;
import org.meshjava.journal.ForwardingJournal;
import org.meshjava.journal.Journal;
import org.meshjava.journal.JournalEntry;
import org.meshjava.journal.JournalException;
import org.meshjava.journal.JournalRecord;

/**
 * A journal that throws {@code IllegalStateException("encoder bug")} on the first record of one
 * kind it is given, then forwards everything: a journal implementation's bug. Or, {@link
 * #afterQueueing}, one that queues that record with its inner journal first and then throws {@code
 * IllegalStateException("decorator bug after queueing")}: a decorator's bug, which leaves the
 * record in the journal though the steward was told it failed. Or, {@link #whileAwaiting}, one that
 * queues it and then throws {@code IllegalStateException("decorator bug while waiting")} from its
 * {@code await}: neither durable nor unwritten as far as the steward can tell. Test support only.
 */
final class FailsOnceUnchecked extends ForwardingJournal {
  private final Class<? extends JournalEntry> kind;
  private final When when;
  private final AtomicBoolean failed = new AtomicBoolean();

  private enum When {
    BEFORE_QUEUEING,
    AFTER_QUEUEING,
    WHILE_AWAITING
  }

  FailsOnceUnchecked(Journal delegate, Class<? extends JournalEntry> kind) {
    this(delegate, kind, When.BEFORE_QUEUEING);
  }

  private FailsOnceUnchecked(Journal delegate, Class<? extends JournalEntry> kind, When when) {
    super(delegate);
    this.kind = kind;
    this.when = when;
  }

  /** Throws once the first record of {@code kind} is queued with {@code delegate}. */
  static FailsOnceUnchecked afterQueueing(Journal delegate, Class<? extends JournalEntry> kind) {
    return new FailsOnceUnchecked(delegate, kind, When.AFTER_QUEUEING);
  }

  /** Queues the first record of {@code kind} with {@code delegate}; its wait then throws. */
  static FailsOnceUnchecked whileAwaiting(Journal delegate, Class<? extends JournalEntry> kind) {
    return new FailsOnceUnchecked(delegate, kind, When.WHILE_AWAITING);
  }

  @Override
  public Pending enqueue(JournalEntry entry) throws JournalException {
    boolean fails = kind.isInstance(entry) && failed.compareAndSet(false, true);
    if (fails && when == When.BEFORE_QUEUEING) {
      throw new IllegalStateException("encoder bug");
    }
    Pending queued = super.enqueue(entry);
    if (!fails) {
      return queued;
    }
    if (when == When.AFTER_QUEUEING) {
      throw new IllegalStateException("decorator bug after queueing");
    }
    return new Pending() {
      @Override
      public JournalRecord record() {
        return queued.record();
      }

      @Override
      public void await() {
        throw new IllegalStateException("decorator bug while waiting");
      }
    };
  }
}
