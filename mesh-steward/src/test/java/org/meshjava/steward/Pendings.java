package org.meshjava.steward;

import org.meshjava.journal.Journal;
import org.meshjava.journal.JournalException;
import org.meshjava.journal.JournalRecord;

/**
 * A journal's pending record with a test's own wait in place of its sync: journal decorators in
 * these tests pause, fail or hold a write at its {@code await()} while the record stays the one the
 * journal queued.
 */
final class Pendings {
  /** What awaiting the record does instead. */
  @FunctionalInterface
  interface Await {
    void await() throws JournalException;
  }

  /** {@code pending}'s record, whose {@code await()} runs {@code await}. */
  static Journal.Pending awaitedBy(Journal.Pending pending, Await await) {
    return new Journal.Pending() {
      @Override
      public JournalRecord record() {
        return pending.record();
      }

      @Override
      public void await() throws JournalException {
        await.await();
      }
    };
  }

  private Pendings() {}
}
