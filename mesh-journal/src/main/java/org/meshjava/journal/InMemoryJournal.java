package org.meshjava.journal;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.meshjava.journal.internal.RecordChain;
import org.meshjava.journal.internal.RecordCodec;

/**
 * A journal held in memory: for tests, and for stewards that cannot restart. It records and chains
 * exactly like the file journal but survives nothing (§8): a steward using it promises no spend
 * across restarts. Thread-safe.
 *
 * <p>{@link #InMemoryJournal()} keeps every record for inspection (a few hundred bytes each), for
 * tests; {@link #unretained()} keeps only the chain's state, so memory does not grow with serves,
 * and is what a steward built without a journal uses.
 */
public final class InMemoryJournal implements Journal {
  private final List<JournalRecord> records = new ArrayList<>();
  private final List<byte[]> lines = new ArrayList<>();
  private final RecordChain chain = new RecordChain(new RecordCodec(), 0, Optional.empty());
  private final boolean retain;
  private boolean closed;

  /** Creates an empty journal that keeps every record for {@link #records()}. */
  public InMemoryJournal() {
    this(true);
  }

  private InMemoryJournal(boolean retain) {
    this.retain = retain;
  }

  /** Creates an empty journal that keeps no records, only the chain's state. */
  public static InMemoryJournal unretained() {
    return new InMemoryJournal(false);
  }

  @Override
  public List<JournalRecord> recovered() {
    return List.of();
  }

  @Override
  public synchronized Pending enqueue(JournalEntry entry) throws JournalException {
    if (closed) {
      throw new JournalException(JournalException.Reason.CLOSED, "the journal is closed", null);
    }
    List<RecordChain.Encoded> encoded;
    try {
      encoded = chain.advance(entry);
    } catch (RecordChain.TooLong e) {
      // Refused as the durable journals refuse it, so a test on this one sees what they do.
      throw new JournalException(JournalException.Reason.CORRUPT, e.why(), e);
    }
    if (retain) {
      for (RecordChain.Encoded each : encoded) {
        records.add(each.record());
        lines.add(each.line());
      }
    }
    RecordChain.Encoded e = encoded.getLast();
    return new Pending() {
      @Override
      public JournalRecord record() {
        return e.record();
      }

      @Override
      public void await() {}
    };
  }

  /** Every record appended so far, in order (none for an {@link #unretained()} journal). */
  public synchronized List<JournalRecord> records() {
    return List.copyOf(records);
  }

  /** Every record's encoded line so far (for tests that inspect the encoding). */
  public synchronized List<byte[]> lines() {
    return lines.stream().map(byte[]::clone).toList();
  }

  @Override
  public boolean durable() {
    return false;
  }

  @Override
  public String describe() {
    return "in-memory journal";
  }

  @Override
  public synchronized Optional<String> refusesAppends() {
    return closed ? Optional.of("the in-memory journal is closed") : Optional.empty();
  }

  @Override
  public synchronized void close() {
    closed = true;
  }
}
