package org.meshjava.journal;

import java.util.Optional;
import org.meshjava.core.ContentId;

/**
 * The chaining state both journals share: the next sequence and the hash of the last encoded
 * record. Not thread-safe; callers hold their own lock.
 */
final class RecordChain {
  private long next;
  private Optional<ContentId> last;

  RecordChain(long next, Optional<ContentId> last) {
    this.next = next;
    this.last = last;
  }

  /** Builds the next record and its encoding, and advances. */
  Encoded advance(JournalEntry entry) {
    JournalRecord r = new JournalRecord(next, last, entry);
    byte[] line = RecordCodec.encode(r);
    next++;
    last = Optional.of(ContentId.ofBytes(line));
    return new Encoded(r, line);
  }

  record Encoded(JournalRecord record, byte[] line) {}
}
