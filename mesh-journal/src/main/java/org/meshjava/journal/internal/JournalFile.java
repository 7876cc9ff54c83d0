package org.meshjava.journal.internal;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.meshjava.core.ContentId;
import org.meshjava.jcp.GrantChain;
import org.meshjava.journal.FileJournal;
import org.meshjava.journal.JournalException;
import org.meshjava.journal.JournalRecord;

/**
 * Reads a journal file's records and checks they form one chain, without locking or changing it
 * (for {@code mesh journal inspect} and for {@link FileJournal#open}). A file this process holds
 * open as a {@link FileJournal} is read through that journal's channel, never through a second
 * descriptor. Stateless.
 */
public final class JournalFile {
  private JournalFile() {}

  /**
   * What a journal file holds.
   *
   * @param records the whole records, in order
   * @param lines their encoded lines (without newlines)
   * @param goodLength the byte length of the whole records, newlines included
   * @param tornTail the bytes of a final line without a newline: an append cut short (§2.2)
   */
  public record Contents(
      List<JournalRecord> records, List<byte[]> lines, long goodLength, int tornTail) {
    /** The hash the next record's {@code prev} must carry. */
    public Optional<ContentId> lastHash() {
      return lines.isEmpty() ? Optional.empty() : Optional.of(ContentId.ofBytes(lines.getLast()));
    }
  }

  /**
   * Reads and checks {@code path}.
   *
   * @throws JournalException with {@code CORRUPT} naming the first record that is malformed or does
   *     not chain, or {@code IO}
   */
  public static Contents read(Path path) throws JournalException {
    return read(path, n -> {});
  }

  /**
   * Reads and checks {@code path}, telling {@code progress} how many records have been checked
   * after each one (for a progress display over a large journal; the callback picks how often to
   * show it).
   *
   * @throws JournalException with {@code CORRUPT} naming the first record that is malformed or does
   *     not chain, or {@code IO}
   */
  public static Contents read(Path path, java.util.function.LongConsumer progress)
      throws JournalException {
    Collected all = new Collected();
    End end = scan(path, progress, all);
    return all.contents(end.goodLength(), end.tornTail());
  }

  /** Every record and line a scan visits, kept: the whole journal, for small ones. */
  private static final class Collected implements Visitor {
    private final List<JournalRecord> records = new ArrayList<>();
    private final List<byte[]> lines = new ArrayList<>();

    @Override
    public void accept(JournalRecord record, byte[] line) {
      records.add(record);
      lines.add(line);
    }

    Contents contents(long goodLength, long tornTail) {
      return new Contents(
          List.copyOf(records),
          List.copyOf(lines),
          goodLength,
          Math.toIntExact(Math.min(Integer.MAX_VALUE, tornTail)));
    }
  }

  /** The contents and the decoder state (the chains read) a journal continues from. */
  public record Recovered(Contents contents, RecordCodec codec) {}

  /** Takes each whole record of a journal with its line (without the newline), in order. */
  @FunctionalInterface
  public interface Visitor {
    /** Takes the next record; throwing stops the scan. */
    void accept(JournalRecord record, byte[] line) throws JournalException;
  }

  /**
   * Where a scanned journal's whole records end.
   *
   * @param count how many whole records it holds
   * @param lastHash the hash of the last one's line: what the next record's {@code prev} carries
   * @param goodLength the byte length of the whole records, newlines included
   * @param tornTail the bytes of a final line without a newline: an append cut short (§2.2)
   */
  public record End(long count, Optional<ContentId> lastHash, long goodLength, long tornTail) {
    /** Validates the figures. */
    public End {
      java.util.Objects.requireNonNull(lastHash, "lastHash");
      if (count < 0 || goodLength < 0 || tornTail < 0) {
        throw new IllegalArgumentException("counts and lengths are not negative");
      }
    }
  }

  /**
   * Streams the journal file at {@code path} to {@code visitor}, record by record, with the checks
   * {@link #read} makes, keeping no record: a journal of any length is checked in bounded memory
   * (for {@code mesh journal verify}, {@code inspect} and {@code export}). A missing file is an
   * empty journal. {@code progress} is told the count of records checked after each one.
   *
   * <p>The read, and with it every call of {@code progress} and {@code visitor}, runs on a journal
   * I/O thread ({@link JournalIo}) while the caller waits: an interrupt of the caller neither
   * reaches the callbacks nor stops the scan, and is set again when it returns or throws.
   *
   * @throws JournalException with {@code CORRUPT} naming the first record that is malformed or does
   *     not chain, or a line longer than any record; {@code IO}; or what {@code visitor} throws
   */
  public static End scan(Path path, java.util.function.LongConsumer progress, Visitor visitor)
      throws JournalException {
    return scan(path, 0, progress, visitor);
  }

  /**
   * As {@link #scan(Path, java.util.function.LongConsumer, Visitor)}, for a journal whose live file
   * begins at record {@code liveStart} because the records before it were archived: those are
   * streamed first from its segments ({@link JournalSegments}), so the records still run from 0 and
   * are checked as one chain.
   *
   * @throws JournalException also {@code ARCHIVED} if the segments are not all present
   */
  public static End scan(
      Path path, long liveStart, java.util.function.LongConsumer progress, Visitor visitor)
      throws JournalException {
    // On a journal I/O thread, the caller's callbacks too, as a held journal's read runs them: an
    // interrupt of the caller's thread during a read on it would close the descriptor, which may be
    // of a file this process holds locked swapped in under the name, and let that lock go. The
    // pool grows for a callback that does journal I/O of its own, so none waits for a thread.
    return JournalIo.call(() -> scanHere(path, liveStart, progress, visitor));
  }

  /** {@link #scan(Path, long, java.util.function.LongConsumer, Visitor)} on this thread. */
  private static End scanHere(
      Path path, long liveStart, java.util.function.LongConsumer progress, Visitor visitor)
      throws JournalException {
    Scanner scanner = new Scanner(progress);
    if (liveStart > 0) {
      JournalSegments.lines(
          path, 0, liveStart, (line, segment) -> visitor.accept(scanner.take(line), line));
    }
    try {
      if (!Files.exists(path)) {
        return scanner.end();
      }
      Optional<End> held =
          HeldJournals.read(
              path,
              HeldJournals.identity(path.toRealPath()),
              ch -> scanLines(ch, path, scanner, visitor));
      if (held.isPresent()) {
        return held.get();
      }
      // Closed keeping locks: a journal held here swapped in under the name after that look.
      try (HeldJournals.ReadChannel read = LockHolder.openToRead(path)) {
        return scanLines(read.channel(), path, scanner, visitor);
      }
    } catch (LineReader.TooLong e) {
      throw new JournalException(
          JournalException.Reason.CORRUPT, "cannot read " + path + ": " + FailureWords.of(e), e);
    } catch (IOException e) {
      throw new JournalException(
          JournalException.Reason.IO,
          "cannot read " + path + ": " + FailureWords.about(path, e),
          e);
    }
  }

  /**
   * Streams the whole lines of the file on {@code ch}, checked by {@code scanner}, to {@code
   * visitor}, with positional reads (the channel's position, and a lock held through it, are left
   * alone). The size is read once: a steward appending meanwhile leaves at most a part line, a torn
   * tail here, as a copy of the file taken now would.
   */
  private static End scanLines(FileChannel ch, Path path, Scanner scanner, Visitor visitor)
      throws IOException, JournalException {
    long size = ch.size();
    LineReader lines = new LineReader(ch, 0, size);
    for (byte[] line = lines.next(); line != null; line = lines.next()) {
      if (line.length == 0 && scanner.count > 0) {
        throw EmptyLine.refused(path, lines.offset() - 1, scanner.count - 1);
      }
      visitor.accept(scanner.take(line), line);
    }
    return scanner.end(size - lines.offset());
  }

  /**
   * A scanner of record lines that arrive one at a time from any store, each checked as {@link
   * #read} checks a file's: decodes, and requires the sequence and the {@code prev} chain. Not
   * thread-safe; one per scan.
   */
  public static Scanner scanner(java.util.function.LongConsumer progress) {
    return new Scanner(progress);
  }

  /** Checks record lines in order; see {@link #scanner}. */
  public static final class Scanner {
    /**
     * The grant chains the lines name, each forgotten once a decision past its expiry is read: a
     * scan takes every record from the first, in order, as a replay applies them, so it needs no
     * more, and a journal of callers that take a grant per call is checked in bounded memory.
     */
    private final Map<ContentId, GrantChain> chains = new HashMap<>();

    private final RecordCodec codec = new RecordCodec(chains);
    private final java.util.function.LongConsumer progress;
    private long count;
    private long length;
    private Optional<ContentId> prevHash = Optional.empty();

    private Scanner(java.util.function.LongConsumer progress) {
      this.progress = java.util.Objects.requireNonNull(progress, "progress");
    }

    /**
     * Decodes and checks the next line (without its newline).
     *
     * @throws JournalException {@code CORRUPT} naming the record if it is malformed, holds the
     *     wrong sequence or does not chain
     */
    public JournalRecord take(byte[] line) throws JournalException {
      long seq = count;
      JournalRecord r = codec.decode(line, seq);
      if (r.seq() != seq) {
        throw new JournalException(
            JournalException.Reason.CORRUPT,
            seq,
            "holds seq "
                + r.seq()
                + " where seq "
                + seq
                + " belongs; records do not form one chain",
            null);
      }
      if (!r.prev().equals(prevHash)) {
        throw new JournalException(
            JournalException.Reason.CORRUPT,
            seq,
            "prev does not match the hash of record "
                + (seq - 1)
                + "; records do not form one chain",
            null);
      }
      prevHash = Optional.of(ContentId.ofBytes(line));
      count++;
      length += line.length + 1L;
      codec.applied(r.entry());
      progress.accept(count);
      return r;
    }

    /** How many grant chains the scan holds now: those a later record may still name. */
    public int chainsHeld() {
      return chains.size();
    }

    /**
     * Decodes and checks the next line as a store other than a file holds it: a stored line that
     * holds a newline is refused, since it would split in two when written out as a file. No record
     * written by this project holds one (its JSON escapes control characters).
     *
     * @throws JournalException {@code CORRUPT} as {@link #take}, or for a newline
     */
    public JournalRecord takeStored(byte[] line) throws JournalException {
      JournalChain.checkOneLine(line, count);
      return take(line);
    }

    /** Where the lines taken end, as a file of them (each with its newline) would. */
    public End end() {
      return end(0);
    }

    private End end(long tornTail) {
      return new End(count, prevHash, length, tornTail);
    }
  }

  /**
   * Checks the journal bytes {@code all} as {@link #read} checks a file, keeping the decoder state
   * a journal continues from.
   *
   * @throws JournalException {@code CORRUPT} naming the first record that is malformed or does not
   *     chain
   */
  public static Recovered parse(byte[] all) throws JournalException {
    Scanner scanner = new Scanner(n -> {});
    Collected collected = new Collected();
    int start = scanBytes(all, scanner, collected);
    return new Recovered(collected.contents(start, all.length - start), scanner.codec);
  }

  /**
   * Hands each newline-terminated line of {@code all}, checked by {@code scanner}, to {@code
   * visitor}; returns where the whole lines end (a final line without a newline is left out).
   */
  private static int scanBytes(byte[] all, Scanner scanner, Visitor visitor)
      throws JournalException {
    int start = 0;
    for (int i = 0; i < all.length; i++) {
      if (all[i] == '\n') {
        byte[] line = Arrays.copyOfRange(all, start, i);
        visitor.accept(scanner.take(line), line);
        start = i + 1;
      }
    }
    return start;
  }
}
