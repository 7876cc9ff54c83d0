package org.meshjava.steward;

import java.util.List;
import org.meshjava.journal.InMemoryJournal;
import org.meshjava.journal.Journal;
import org.meshjava.journal.JournalEntry;
import org.meshjava.journal.JournalException;
import org.meshjava.journal.JournalRecord;

/**
 * A journal held in memory that reports itself durable, standing in for durable storage in tests
 * of a steward whose key outlives it (which honours grants only over a durable journal, §2.2).
 * Records and chains exactly like {@link InMemoryJournal}. Test support only.
 */
final class DurableMemoryJournal implements Journal {
  private final InMemoryJournal inner = new InMemoryJournal();

  @Override
  public List<JournalRecord> recovered() {
    return inner.recovered();
  }

  @Override
  public Pending enqueue(JournalEntry entry) throws JournalException {
    return inner.enqueue(entry);
  }

  @Override
  public boolean durable() {
    return true;
  }

  @Override
  public String describe() {
    return "durable stand-in " + inner.describe();
  }

  @Override
  public void close() {
    inner.close();
  }

  /** Every record appended so far, in order. */
  List<JournalRecord> records() {
    return inner.records();
  }
}
