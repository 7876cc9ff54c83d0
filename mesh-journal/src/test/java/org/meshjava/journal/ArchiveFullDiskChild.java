package org.meshjava.journal;

import java.nio.file.Path;

/**
 * The child of {@link ArchiveFullDiskTest}: run under a file size limit ({@code ulimit -f}), it
 * archives the journal its first argument names up to each record count its other arguments give,
 * in turn, printing for each {@code ARCHIVED <records moved>}, {@code REFUSED <reason>}, or {@code
 * THREW <class>} for anything that is not a journal's refusal.
 */
public final class ArchiveFullDiskChild {
  private ArchiveFullDiskChild() {}

  public static void main(String[] args) throws Exception {
    Path journal = Path.of(args[0]);
    for (int i = 1; i < args.length; i++) {
      try {
        long moved =
            FileJournal.archive(
                journal,
                JournalArchiveTest.positionAt(
                    LiveFileOlderThanArchiveTest.lines(journal), Integer.parseInt(args[i]), -1),
                new java.util.HashMap<>());
        System.out.println("ARCHIVED " + moved);
      } catch (JournalException e) {
        System.out.println("REFUSED " + e.reason());
      } catch (RuntimeException | Error e) {
        System.out.println("THREW " + e.getClass().getName());
      }
    }
    System.out.flush();
  }
}
