package org.meshjava.journal.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.meshjava.core.ContentId;
import org.meshjava.journal.JournalEntry;
import org.meshjava.journal.JournalRecord;
import org.meshjava.journal.JournalSeal;

/**
 * The chaining state both journals share: the next sequence, the hash of the last encoded record,
 * and the grant chains already recorded. Not thread-safe; callers hold their own lock.
 */
public final class RecordChain {
  private final RecordCodec codec;
  private long next;
  private Optional<ContentId> last;

  public RecordChain(RecordCodec codec, long next, Optional<ContentId> last) {
    this.codec = codec;
    this.next = next;
    this.last = last;
  }

  /**
   * Builds the records for {@code entry} and their encodings, and advances: a {@code Chain} record
   * first when an authorisation presents a chain not yet recorded, then the entry's own.
   */
  public List<Encoded> advance(JournalEntry entry) {
    List<Encoded> out = new ArrayList<>(2);
    if (entry instanceof JournalEntry.Authorised a) {
      JournalEntry.Chain chain = new JournalEntry.Chain(a.presentation().chain());
      ContentId id = chain.id();
      if (!codec.knows(id)) {
        out.add(one(chain));
        codec.remember(id, a.presentation().chain());
      }
    }
    out.add(one(entry));
    codec.applied(entry);
    return out;
  }

  /** The sequence the next record takes. */
  public long next() {
    return next;
  }

  /** The hash of the last record, which the next one carries as its {@code prev}. */
  public Optional<ContentId> last() {
    return last;
  }

  private Encoded one(JournalEntry entry) {
    if (entry instanceof JournalEntry.Checkpoint c && c.seal() instanceof JournalSeal.ToSign t) {
      // Signed here, under the journal's lock, so the seal names the place the record really takes.
      entry = new JournalEntry.Checkpoint(c.note(), t.sign(next, last));
    }
    JournalRecord r = new JournalRecord(next, last, entry);
    byte[] line = RecordCodec.encode(r);
    next++;
    last = Optional.of(ContentId.ofBytes(line));
    return new Encoded(r, line);
  }

  @SuppressWarnings("ArrayRecordComponent") // a carrier from encoder to writer, never compared
  public record Encoded(JournalRecord record, byte[] line) {}
}
