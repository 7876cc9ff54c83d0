package org.meshjava.journal.internal;

import org.meshjava.journal.JournalException;

/**
 * The refusal of an empty line in a journal file. No append writes one: it is an edit, most often
 * an editor's newline added at the end of the file. It is refused, not skipped, because a journal's
 * bytes are the steward's own and hash-linked, and an operator should learn the file was touched;
 * but the message says the line held nothing, so removing it restores the journal as written.
 */
public final class EmptyLine {
  private EmptyLine() {}

  /**
   * A {@code CORRUPT} refusal naming the empty line and the record before it.
   *
   * @param file the journal file, as the message names it
   * @param at the byte offset where the (first) empty line starts
   * @param after the sequence of the record just before it, or -1 for a line before record 0
   */
  public static JournalException refused(Object file, long at, long after) {
    return new JournalException(
        JournalException.Reason.CORRUPT,
        "the line at byte "
            + at
            + " of "
            + file
            + (after < 0 ? " is empty, before record 0" : " is empty, after record " + after)
            + ": no append writes an empty line, so the file was edited (an editor's newline at"
            + " its end?); nothing in it was a record: remove the empty line and open the journal"
            + " again",
        null);
  }
}
