package org.meshjava.journal.internal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.meshjava.core.ContentId;
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
    return recover(path, progress).contents();
  }

  /** The contents and the decoder state (the chains read) a journal continues from. */
  public record Recovered(Contents contents, RecordCodec codec) {}

  private static Recovered recover(Path path, java.util.function.LongConsumer progress)
      throws JournalException {
    byte[] all;
    try {
      if (!Files.exists(path)) {
        all = new byte[0];
      } else {
        // A journal this process holds is read through its holder's channel: opening and closing
        // another descriptor of the file would release the holder's lock (see FileJournal).
        Optional<byte[]> held = HeldJournals.read(HeldJournals.identity(path.toRealPath()));
        all = held.isPresent() ? held.get() : Files.readAllBytes(path);
      }
    } catch (IOException e) {
      throw new JournalException(
          JournalException.Reason.IO, "cannot read " + path + ": " + e.getMessage(), e);
    }
    return parse(all, progress);
  }

  public static Recovered parse(byte[] all) throws JournalException {
    return parse(all, n -> {});
  }

  private static Recovered parse(byte[] all, java.util.function.LongConsumer progress)
      throws JournalException {
    RecordCodec codec = new RecordCodec();
    List<JournalRecord> records = new ArrayList<>();
    List<byte[]> lines = new ArrayList<>();
    int start = 0;
    Optional<ContentId> prevHash = Optional.empty();
    for (int i = 0; i < all.length; i++) {
      if (all[i] != '\n') {
        continue;
      }
      byte[] line = Arrays.copyOfRange(all, start, i);
      long seq = records.size();
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
      records.add(r);
      lines.add(line);
      prevHash = Optional.of(ContentId.ofBytes(line));
      start = i + 1;
      progress.accept(records.size());
    }
    return new Recovered(
        new Contents(List.copyOf(records), List.copyOf(lines), start, all.length - start), codec);
  }
}
