package org.meshjava.journal;

import java.nio.file.Path;
import java.util.HashMap;

/**
 * The child of {@link ArchiveKilledMarkerTest}: appends records to the journal named by its one
 * argument and archives all but its last record, over and over until it is killed. It prints {@code
 * acked N} once a journal of N records is written and closed, so the parent knows what no kill may
 * lose.
 */
public final class ArchiveLoopChild {
  private ArchiveLoopChild() {}

  public static void main(String[] args) throws Exception {
    Path p = Path.of(args[0]);
    while (true) {
      long count;
      try (FileJournal j = FileJournal.openUnsynced(p)) {
        count = j.position().count();
        for (int i = 0; i < 3; i++) {
          j.append(FileJournalStreamTest.sealed((int) count++));
        }
      }
      System.out.println("acked " + count);
      System.out.flush();
      FileJournal.archive(
          p,
          JournalArchiveTest.positionAt(LiveFileOlderThanArchiveTest.lines(p), (int) count - 1, -1),
          new HashMap<>());
    }
  }
}
