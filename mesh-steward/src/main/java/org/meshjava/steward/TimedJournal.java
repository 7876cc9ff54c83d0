package org.meshjava.steward;

import org.meshjava.journal.ForwardingJournal;
import org.meshjava.journal.Journal;
import org.meshjava.journal.JournalEntry;
import org.meshjava.journal.JournalException;
import org.meshjava.journal.JournalRecord;
import org.meshjava.steward.observe.JournalWrite;
import org.meshjava.steward.observe.StewardListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The steward's journal as the steward writes it when a listener is registered: every {@code
 * enqueue} and every {@code await} is timed and reported ({@link JournalWrite}); everything else is
 * the journal's own. Without a listener the steward writes its journal directly. Thread-safe.
 */
final class TimedJournal extends ForwardingJournal {
  private static final Logger LOG = LoggerFactory.getLogger(TimedJournal.class);

  private final StewardListener listener;

  TimedJournal(Journal journal, StewardListener listener) {
    super(journal);
    this.listener = listener;
  }

  @Override
  public Pending enqueue(JournalEntry entry) throws JournalException {
    long start = System.nanoTime();
    Pending p = delegate().enqueue(entry);
    report(new JournalWrite(JournalWrite.Step.APPEND, elapsed(start)));
    return new Pending() {
      @Override
      public JournalRecord record() {
        return p.record();
      }

      @Override
      public void await() throws JournalException {
        long began = System.nanoTime();
        p.await();
        report(new JournalWrite(JournalWrite.Step.SYNC, elapsed(began)));
      }
    };
  }

  /**
   * Tells the listener of a write that has happened. Nothing it throws goes on: a throw from here
   * would reach the steward as the journal's answer, and the steward would take a record the
   * journal holds for one never written (the chain not advanced past a queued receipt, which the
   * next serve then sealed again under its number; a durable receipt never handed out). The
   * listener guard lets only the JVM failing pass ({@link org.meshjava.core.internal.JvmFailure}'s
   * rule, as everywhere the steward asks foreign code); here even that is logged and the write's
   * answer stands, as for a listener call after a serve's work ({@link
   * GuardedListener#afterTheWork}): the write happened whatever the listener met.
   */
  private void report(JournalWrite write) {
    try {
      listener.journalWritten(write);
    } catch (RuntimeException | Error e) {
      GuardedListener.logThrown(
          e,
          t -> LOG.error("steward listener failed on a journal write; the write stands", t),
          kind ->
              LOG.error(
                  "steward listener failed on a journal write ({}, which cannot be printed); the"
                      + " write stands",
                  kind));
    }
  }

  private static long elapsed(long start) {
    return Math.max(0, System.nanoTime() - start);
  }
}
