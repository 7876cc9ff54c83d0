package org.meshjava.steward;

import java.util.concurrent.atomic.AtomicBoolean;
import org.meshjava.journal.ForwardingJournal;
import org.meshjava.journal.Journal;
import org.meshjava.journal.JournalEntry;
import org.meshjava.journal.JournalException;

/**
 * A journal that throws {@code IllegalStateException("encoder bug")} on the first record of one
 * kind it is given, then forwards everything: a journal implementation's bug. Test support only.
 */
final class FailsOnceUnchecked extends ForwardingJournal {
  private final Class<? extends JournalEntry> kind;
  private final AtomicBoolean failed = new AtomicBoolean();

  FailsOnceUnchecked(Journal delegate, Class<? extends JournalEntry> kind) {
    super(delegate);
    this.kind = kind;
  }

  @Override
  public Pending enqueue(JournalEntry entry) throws JournalException {
    if (kind.isInstance(entry) && failed.compareAndSet(false, true)) {
      throw new IllegalStateException("encoder bug");
    }
    return super.enqueue(entry);
  }
}
