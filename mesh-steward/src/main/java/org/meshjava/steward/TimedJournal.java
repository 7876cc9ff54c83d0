package org.meshjava.steward;

import org.meshjava.journal.ForwardingJournal;
import org.meshjava.journal.Journal;
import org.meshjava.journal.JournalEntry;
import org.meshjava.journal.JournalException;
import org.meshjava.journal.JournalRecord;
import org.meshjava.steward.observe.JournalWrite;
import org.meshjava.steward.observe.StewardListener;

/**
 * The steward's journal as the steward writes it when a listener is registered: every {@code
 * enqueue} and every {@code await} is timed and reported ({@link JournalWrite}); everything else is
 * the journal's own. Without a listener the steward writes its journal directly. Thread-safe.
 */
final class TimedJournal extends ForwardingJournal {
  private final StewardListener listener;

  TimedJournal(Journal journal, StewardListener listener) {
    super(journal);
    this.listener = listener;
  }

  @Override
  public Pending enqueue(JournalEntry entry) throws JournalException {
    long start = System.nanoTime();
    Pending p = delegate().enqueue(entry);
    listener.journalWritten(new JournalWrite(JournalWrite.Step.APPEND, elapsed(start)));
    return new Pending() {
      @Override
      public JournalRecord record() {
        return p.record();
      }

      @Override
      public void await() throws JournalException {
        long began = System.nanoTime();
        p.await();
        listener.journalWritten(new JournalWrite(JournalWrite.Step.SYNC, elapsed(began)));
      }
    };
  }

  private static long elapsed(long start) {
    return Math.max(0, System.nanoTime() - start);
  }
}
