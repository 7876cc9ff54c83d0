package org.meshjava.journal;

import java.nio.file.Path;
import java.util.HashMap;

/**
 * The child of {@link ArchiveKilledMarkerTest}: appends records to the journal named by its one
 * argument and archives all but its last record, over and over until it is killed. It prints {@code
 * acked N} once a journal of N records is written and closed, so the parent knows what no kill may
 * lose. It ends when its input closes.
 */
public final class ArchiveLoopChild {
  private ArchiveLoopChild() {}

  public static void main(String[] args) throws Exception {
    Path p = Path.of(args[0]);
    // It loops for ever, so it ends when its parent is gone (its input closed), as LockChild holds
    // until then: a parent that failed or timed out before its kill, or died, leaves no child
    // appending to its journal.
    Thread parentGone =
        new Thread(
            () -> {
              try {
                while (System.in.read() >= 0) {
                  // The parent writes nothing; this waits for the end of the input.
                }
              } catch (java.io.IOException e) {
                // As gone.
              }
              Runtime.getRuntime().halt(0);
            });
    parentGone.setDaemon(true);
    parentGone.start();
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
