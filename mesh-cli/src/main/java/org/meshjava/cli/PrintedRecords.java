package org.meshjava.cli;

import java.io.PrintWriter;
import java.util.Arrays;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.meshjava.journal.JournalException;
import org.meshjava.journal.JournalRecord;

/**
 * The records {@code mesh journal inspect} has printed, kept across the runs of its read. inspect
 * takes no lock, so an archive may move the journal's files under it and its read is made again
 * from record 0 (SPEC.md 60.8, "Verifying"); it prints each record as it reads it, so the records a
 * failed run printed are not printed again. That is sound because an archive moves records without
 * changing them: a later run that reads the last record printed as the same bytes has read every
 * record before it the same too, each line naming the hash of the one before (§2.2). Nothing but
 * the count and that one line is kept, so a journal of any length is inspected in bounded memory.
 * Not thread-safe: one command's runs, one after another.
 */
final class PrintedRecords {
  private final PrintWriter out;

  /** How many records are printed: records 0 to {@code printed - 1}. */
  private long printed;

  /** The line of record {@code printed - 1}, as it was read when printed; null before any. */
  private byte @Nullable [] last;

  PrintedRecords(PrintWriter out) {
    this.out = Objects.requireNonNull(out, "out");
  }

  /**
   * Prints {@code text}, what is shown of record {@code r} read as {@code line}, unless a run
   * before this one printed it.
   *
   * @throws JournalException {@code CORRUPT} when the last record printed reads otherwise now: the
   *     journal was replaced while it was read, and what is printed is not one journal's
   */
  void print(JournalRecord r, byte[] line, String text) throws JournalException {
    if (r.seq() >= printed) {
      out.println(text);
      printed = r.seq() + 1;
      last = line.clone();
      return;
    }
    if (r.seq() == printed - 1 && !Arrays.equals(line, last)) {
      throw changed("record " + r.seq() + " reads otherwise than when it was printed");
    }
  }

  /**
   * Checks that a run that read the journal through, {@code count} records, read every record
   * printed.
   *
   * @throws JournalException {@code CORRUPT} if it read fewer: the journal was replaced by a
   *     shorter one while it was read
   */
  void requireRead(long count) throws JournalException {
    if (count < printed) {
      throw changed("it holds " + count + " records now, " + printed + " were printed");
    }
  }

  private static JournalException changed(String what) {
    return new JournalException(
        JournalException.Reason.CORRUPT,
        "the journal changed while it was inspected other than by an archive ("
            + what
            + "): it was replaced or edited; inspect it again",
        null);
  }
}
