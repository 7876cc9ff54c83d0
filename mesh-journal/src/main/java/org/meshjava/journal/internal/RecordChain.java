package org.meshjava.journal.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.meshjava.core.ContentId;
import org.meshjava.journal.JournalEntry;
import org.meshjava.journal.JournalRecord;
import org.meshjava.journal.JournalSeal;

/**
 * The chaining state both journals share: the next sequence, the hash of the last encoded record,
 * and the grant chains already recorded. Not thread-safe; callers hold their own lock.
 *
 * <p>{@link #advance} is all or nothing: it builds and encodes every record of an entry first and
 * only then moves the sequence, the last hash and the recorded chains. A throw part way (the
 * encoder out of memory on the second record, a seal's signer failing) must not leave the sequence
 * moved past a {@code Chain} record that was never queued and the chain noted as recorded: the next
 * record would chain from a line no file holds, and a later authorisation on that chain would name
 * one the journal never wrote, a file its next opening refuses.
 */
public final class RecordChain {
  /**
   * The longest record line an append writes: no longer than a journal reads back ({@link
   * LineReader#MAX_LINE_BYTES}), nor than the longest string the decoder reads ({@link
   * RecordCodec#MAX_STRING}), which a line no longer than it cannot hold. A record is kilobytes.
   */
  public static final int MAX_LINE = Math.min(LineReader.MAX_LINE_BYTES, RecordCodec.MAX_STRING);

  private final RecordCodec codec;
  private final Encoder encoder;

  private long next;
  private Optional<ContentId> last;

  /** How a record is encoded: {@link RecordCodec#encode(JournalRecord, IdentifiedChain)}. */
  @FunctionalInterface
  interface Encoder {
    /** Encodes {@code r}; {@code known} is the chain it names, already hashed, if any. */
    byte[] encode(JournalRecord r, @Nullable IdentifiedChain known);
  }

  public RecordChain(RecordCodec codec, long next, Optional<ContentId> last) {
    this(codec, next, last, RecordCodec::encode);
  }

  /** With {@code encoder} in place of {@link RecordCodec#encode}: a test's seam for a failure. */
  RecordChain(RecordCodec codec, long next, Optional<ContentId> last, Encoder encoder) {
    this.codec = codec;
    this.encoder = encoder;
    this.next = next;
    this.last = last;
  }

  /**
   * Builds the records for {@code entry} and their encodings, and advances: a {@code Chain} record
   * first when an authorisation presents a chain not yet recorded, then the entry's own. If it
   * throws, nothing has moved.
   */
  public List<Encoded> advance(JournalEntry entry) {
    List<Encoded> out = new ArrayList<>(2);
    long seq = next;
    Optional<ContentId> prev = last;
    IdentifiedChain unrecorded = null;
    // Hashed once here, and handed to the encoder, which writes it in both records.
    IdentifiedChain known = null;
    if (entry instanceof JournalEntry.Authorised a) {
      known = IdentifiedChain.of(a.presentation().chain());
      if (!codec.knows(known.id())) {
        Encoded first = one(new JournalEntry.Chain(known.chain()), seq, prev, known);
        out.add(first);
        seq++;
        prev = Optional.of(ContentId.ofBytes(first.line()));
        unrecorded = known;
      }
    }
    Encoded own = one(entry, seq, prev, known);
    out.add(own);
    // Everything is built and encoded: only now does the state move.
    if (unrecorded != null) {
      codec.remember(unrecorded.id(), unrecorded.chain());
    }
    codec.applied(entry);
    next = seq + 1;
    last = Optional.of(ContentId.ofBytes(own.line()));
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

  /**
   * The record of {@code entry} at {@code seq} after {@code prev}, encoded; moves nothing. {@code
   * known} is the chain a {@code Chain} or {@code Authorised} entry names, hashed, else null.
   */
  private Encoded one(
      JournalEntry entry, long seq, Optional<ContentId> prev, @Nullable IdentifiedChain known) {
    if (entry instanceof JournalEntry.Checkpoint c && c.seal() instanceof JournalSeal.ToSign t) {
      // Signed here, under the journal's lock, so the seal names the place the record really takes.
      entry = new JournalEntry.Checkpoint(c.note(), t.sign(seq, prev));
    }
    JournalRecord r = new JournalRecord(seq, prev, entry);
    byte[] line = encoder.encode(r, known);
    if (line.length > MAX_LINE) {
      // Both journals refuse a longer line when they read (SPEC.md section 60.3), and the decoder
      // a longer string: stored, it would be the one record no opening gets past, and the journal
      // would never open again.
      throw new TooLong(
          "a "
              + entry.getClass().getSimpleName()
              + " record would be a line of "
              + line.length
              + " bytes, longer than the "
              + MAX_LINE
              + " bytes a record may be (a journal reads back no line over "
              + LineReader.MAX_LINE_BYTES
              + " bytes, nor a string in it over "
              + RecordCodec.MAX_STRING
              + " characters): it was not written, and the journal goes on");
    }
    return new Encoded(r, line);
  }

  /**
   * An entry whose record would be longer than {@link #MAX_LINE}: thrown by {@link #advance} before
   * anything has moved, so the journal refuses that one append and takes the next.
   */
  public static final class TooLong extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    /** The refusal in words, never null. */
    private final String why;

    TooLong(String why) {
      super(why);
      this.why = why;
    }

    /** The refusal in words. */
    public String why() {
      return why;
    }
  }

  @SuppressWarnings("ArrayRecordComponent") // a carrier from encoder to writer, never compared
  public record Encoded(JournalRecord record, byte[] line) {}
}
