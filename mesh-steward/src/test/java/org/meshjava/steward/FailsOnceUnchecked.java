package org.meshjava.steward;

import java.util.concurrent.atomic.AtomicBoolean;
import org.meshjava.journal.ForwardingJournal;
import org.meshjava.journal.Journal;
import org.meshjava.journal.JournalEntry;
import org.meshjava.journal.JournalException;

/**
 * A journal that throws {@code IllegalStateException("encoder bug")} on the first record of one
 * kind it is given, then forwards everything: a journal implementation's bug. Or, {@link
 * #afterQueueing}, one that queues that record with its inner journal first and then throws {@code
 * IllegalStateException("decorator bug after queueing")}: a decorator's bug, which leaves the
 * record in the journal though the steward was told it failed. Test support only.
 */
final class FailsOnceUnchecked extends ForwardingJournal {
  private final Class<? extends JournalEntry> kind;
  private final boolean afterQueueing;
  private final AtomicBoolean failed = new AtomicBoolean();

  FailsOnceUnchecked(Journal delegate, Class<? extends JournalEntry> kind) {
    this(delegate, kind, false);
  }

  private FailsOnceUnchecked(
      Journal delegate, Class<? extends JournalEntry> kind, boolean afterQueueing) {
    super(delegate);
    this.kind = kind;
    this.afterQueueing = afterQueueing;
  }

  /** Throws once the first record of {@code kind} is queued with {@code delegate}. */
  static FailsOnceUnchecked afterQueueing(Journal delegate, Class<? extends JournalEntry> kind) {
    return new FailsOnceUnchecked(delegate, kind, true);
  }

  @Override
  public Pending enqueue(JournalEntry entry) throws JournalException {
    boolean fails = kind.isInstance(entry) && failed.compareAndSet(false, true);
    if (fails && !afterQueueing) {
      throw new IllegalStateException("encoder bug");
    }
    Pending queued = super.enqueue(entry);
    if (fails) {
      throw new IllegalStateException("decorator bug after queueing");
    }
    return queued;
  }
}
