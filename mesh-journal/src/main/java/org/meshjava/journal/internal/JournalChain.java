package org.meshjava.journal.internal;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;
import org.meshjava.core.ContentId;
import org.meshjava.jcp.GrantChain;
import org.meshjava.journal.Journal;
import org.meshjava.journal.JournalEntry;
import org.meshjava.journal.JournalException;
import org.meshjava.journal.JournalPosition;
import org.meshjava.journal.JournalRecord;

/**
 * The record chain of a journal kept outside a file (a database table, say): recovers the chain
 * from the stored record lines with exactly the checks the file journal makes on open, then encodes
 * each new record to exactly the bytes the file journal would write (SPEC.md section 60.2). A
 * journal stored elsewhere therefore holds the same records, line for line, as a file journal of
 * the same history, and can be exported to one and imported from one without re-encoding.
 *
 * <p>Not thread-safe: the owning journal fixes each record's place under its own lock.
 */
public final class JournalChain {
  private final List<JournalRecord> recovered;
  private final RecordChain chain;
  private final JournalPosition end;

  private JournalChain(List<JournalRecord> recovered, RecordChain chain, JournalPosition end) {
    this.recovered = recovered;
    this.chain = chain;
    this.end = end;
  }

  /**
   * Checks {@code lines} (each one record's encoding, without its newline, in sequence order) as
   * the file journal checks its file, and continues the chain after the last.
   *
   * @throws JournalException {@code CORRUPT} naming the first record that is malformed or does not
   *     chain
   */
  public static JournalChain recover(List<byte[]> lines) throws JournalException {
    JournalFile.Recovered r = parse(lines);
    JournalFile.Contents c = r.contents();
    return new JournalChain(
        c.records(),
        new RecordChain(r.codec(), c.records().size(), c.lastHash()),
        new JournalPosition(c.records().size(), c.lastHash(), -1));
  }

  /**
   * Continues a chain that {@code checked} has read to its end, line by line (a store too large to
   * hold whole is checked that way): the next record follows the last one read, and a grant chain
   * read is not recorded again. Holds no records ({@link #recovered()} is empty).
   */
  public static JournalChain resume(Reader checked) {
    JournalPosition end = checked.reader.position();
    return new JournalChain(
        List.of(),
        new RecordChain(new RecordCodec(checked.chains), end.count(), end.lastHash()),
        new JournalPosition(end.count(), end.lastHash(), -1));
  }

  /**
   * Checks {@code lines} as {@link #recover} does and returns them as a file's contents (for
   * reading a stored journal as {@code mesh journal verify} does, or writing it out as a file).
   *
   * @throws JournalException {@code CORRUPT} naming the first record that is malformed or does not
   *     chain
   */
  public static JournalFile.Contents contents(List<byte[]> lines) throws JournalException {
    return parse(lines).contents();
  }

  private static JournalFile.Recovered parse(List<byte[]> lines) throws JournalException {
    ByteArrayOutputStream all = new ByteArrayOutputStream();
    for (int i = 0; i < lines.size(); i++) {
      byte[] line = lines.get(i);
      checkOneLine(line, i);
      all.write(line, 0, line.length);
      all.write('\n');
    }
    return JournalFile.parse(all.toByteArray());
  }

  /**
   * Refuses a stored record {@code seq} that holds a newline: it would split in two when read as a
   * file. No record written by this project holds one (its JSON escapes control characters).
   */
  static void checkOneLine(byte[] line, long seq) throws JournalException {
    for (byte b : line) {
      if (b == '\n') {
        throw new JournalException(
            JournalException.Reason.CORRUPT, seq, "the stored record holds a newline", null);
      }
    }
  }

  /** Where the recovered records end: their count and the hash of the last one's line. */
  public JournalPosition recoveredEnd() {
    return end;
  }

  /**
   * A reader of stored lines from {@code from} on, checking that they continue the chain from
   * there, as the file journal reads its file ({@link Journal#read}).
   *
   * @param chains the grant chains recorded before {@code from}; the chains read are added to it
   */
  public static Reader reader(JournalPosition from, java.util.Map<ContentId, GrantChain> chains) {
    return new Reader(new ChainedReader(from, chains), chains);
  }

  /** Decodes stored lines in order and checks their chain; one per read, not thread-safe. */
  public static final class Reader {
    private final ChainedReader reader;
    private final java.util.Map<ContentId, GrantChain> chains;

    private Reader(ChainedReader reader, java.util.Map<ContentId, GrantChain> chains) {
      this.reader = reader;
      this.chains = chains;
    }

    /** The sequence the next line must hold. */
    public long next() {
      return reader.next();
    }

    /**
     * Decodes and checks the next line (record {@link #next()}'s, without its newline).
     *
     * @param where the storage, for messages
     * @throws JournalException {@code CORRUPT} if it is malformed or does not chain; {@code
     *     POSITION_MISMATCH} if the first line does not follow the starting place
     */
    public JournalRecord take(byte[] line, Object where) throws JournalException {
      checkOneLine(line, reader.next());
      return reader.take(line, where);
    }

    /**
     * Takes the next line as {@link #take} does and applies it in order: a reader that reads every
     * record from its starting place to the end and keeps only the grant chains (an opening that
     * checks a whole store) forgets each chain once no later record can name it, as a replay does,
     * so it holds the chains still presentable, not every chain the history ever recorded.
     */
    public JournalRecord takeApplied(byte[] line, Object where) throws JournalException {
      JournalRecord r = take(line, where);
      reader.applied(r);
      return r;
    }
  }

  /** The records recovered, in order: what a restart replays. */
  public List<JournalRecord> recovered() {
    return recovered;
  }

  /**
   * Builds the records {@code entry} takes (a {@code Chain} record first when an authorisation
   * presents a grant chain not yet recorded, then the entry's own) and advances past them.
   */
  public List<Encoded> advance(JournalEntry entry) {
    List<Encoded> out = new ArrayList<>(2);
    for (RecordChain.Encoded e : chain.advance(entry)) {
      out.add(new Encoded(e.record(), e.line()));
    }
    return out;
  }

  /**
   * One record and its encoding (without the newline); the next record's {@code prev} is BLAKE3 of
   * {@code line}.
   *
   * @param record the record
   * @param line its canonical encoding
   */
  @SuppressWarnings("ArrayRecordComponent") // a carrier from encoder to storage, never compared
  public record Encoded(JournalRecord record, byte[] line) {
    /** Validates and copies. */
    public Encoded {
      java.util.Objects.requireNonNull(record, "record");
      line = line.clone();
    }

    /** A copy of the encoding. */
    @Override
    public byte[] line() {
      return line.clone();
    }
  }
}
