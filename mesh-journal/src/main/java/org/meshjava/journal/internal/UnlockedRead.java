package org.meshjava.journal.internal;

import java.nio.file.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads of a file journal that take no lock and may look at its files several times, as {@code mesh
 * journal verify} and {@code export} do beside a running steward, made again when one fails while
 * an archive or an opening moves those files (SPEC.md 60.8, "Verifying").
 */
public final class UnlockedRead {
  private static final Logger LOG = LoggerFactory.getLogger(UnlockedRead.class);

  /**
   * How often {@link #run} runs a read that failed while the journal's files changed: an archive
   * changes them three times (its pending segment written, its cut renamed into place, the segment
   * named), and an opening that settles a pending segment once more.
   */
  static final int ATTEMPTS = 8;

  private UnlockedRead() {}

  /**
   * One read of the journal.
   *
   * @param <T> what it returns
   * @param <X> what it throws
   */
  @FunctionalInterface
  public interface Read<T, X extends Exception> {
    /**
     * Reads the journal; may be run more than once, so it keeps nothing from a failed run, or only
     * what the next run checks again against what it reads (as {@code mesh journal inspect} keeps
     * the records it printed, held to the bytes the next run reads for them).
     */
    T read() throws X;
  }

  /**
   * Runs {@code read} on the journal at {@code path}, and again when it fails while the journal's
   * files changed under it ({@link JournalLayout}): an archive renames its cut over the live file
   * and writes, names and removes a pending segment, and an opening settles what a stopped archive
   * left. Each state on the way is one a read accepts, but a read that looked at the live file in
   * one and at the segments in the next, or listed a pending segment just before it was named,
   * failed on a journal that is whole. A read that fails with the files as they were when it began
   * fails at once (appends change nothing compared here, so a journal refused while its steward
   * serves is refused as it is): damage fails every run the same way. What is returned is one run's
   * result alone, every check made within that run. Safe from any thread; it keeps no state.
   *
   * @throws X what the last run of {@code read} threw: its failure with the files unchanged, or
   *     after {@link #ATTEMPTS} runs that each saw them change
   */
  public static <T, X extends Exception> T run(Path path, Read<T, X> read) throws X {
    for (int attempt = 1; ; attempt++) {
      JournalLayout before = JournalLayout.of(path);
      try {
        return read.read();
      } catch (Exception e) {
        if (attempt == ATTEMPTS || JournalLayout.of(path).equals(before)) {
          throw e;
        }
        LOG.info(
            "journal {}: its files changed while they were read (an archive or an opening at"
                + " work), and the read failed ({}); reading them again",
            path,
            FailureWords.of(e));
      }
    }
  }
}
