package org.meshjava.journal.internal;

import java.util.Map;
import java.util.Optional;
import org.meshjava.core.ContentId;
import org.meshjava.jcp.GrantChain;
import org.meshjava.journal.JournalException;
import org.meshjava.journal.JournalPosition;
import org.meshjava.journal.JournalRecord;

/**
 * Decodes lines read from a place in a journal and checks that they continue its chain: each
 * record's {@code seq} is the next, and its {@code prev} the hash of the line before (for the first
 * one, the hash the starting place names). Shared by the live file and its archived segments. Not
 * thread-safe; one per read.
 */
public final class ChainedReader {
  private final RecordCodec codec;
  private final JournalPosition from;
  private long seq;
  private Optional<ContentId> prev;

  public ChainedReader(JournalPosition from, Map<ContentId, GrantChain> chains) {
    this.codec = new RecordCodec(chains);
    this.from = from;
    this.seq = from.count();
    this.prev = from.lastHash();
  }

  /** The position after the last line taken. */
  public JournalPosition position() {
    return new JournalPosition(seq, prev, -1);
  }

  /** The sequence the next line must hold. */
  public long next() {
    return seq;
  }

  /**
   * Decodes and checks the next line.
   *
   * @throws JournalException {@code CORRUPT} if it is malformed or does not chain; {@code
   *     POSITION_MISMATCH} if the first line does not follow the starting place
   */
  public JournalRecord take(byte[] line, Object where) throws JournalException {
    JournalRecord r = codec.decode(line, seq);
    if (r.seq() != seq) {
      throw new JournalException(
          JournalException.Reason.CORRUPT,
          seq,
          "holds seq " + r.seq() + " in " + where + "; records do not form one chain",
          null);
    }
    if (!r.prev().equals(prev)) {
      boolean first = seq == from.count();
      throw new JournalException(
          first ? JournalException.Reason.POSITION_MISMATCH : JournalException.Reason.CORRUPT,
          seq,
          first
              ? "does not follow " + from + "; it is not in this journal's history"
              : "prev does not match the hash of record "
                  + (seq - 1)
                  + " in "
                  + where
                  + "; records do not form one chain",
          null);
    }
    prev = Optional.of(ContentId.ofBytes(line));
    seq++;
    return r;
  }

  /**
   * Notes that {@code r}, the record just taken, is applied in order: an {@code Authorised} one
   * forgets the chains no later record can name ({@link RecordedChains#decided}). Only for a reader
   * that applies every record it takes, from its starting place on; a read that decodes past the
   * place it applies must not call this (RecordedChains' design note).
   */
  public void applied(JournalRecord r) {
    codec.applied(r.entry());
  }
}
