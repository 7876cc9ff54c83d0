package org.meshjava.journal;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.journal.internal.JournalFile;

/**
 * A journal name that is another name (a hard link) of a snapshot folder's lock file this process
 * holds, read by the reads that take no lock ({@code mesh journal verify}, {@code export}).
 * Regression: a steward's opening refused it before opening it, but these reads opened and closed a
 * descriptor of it, and closing any descriptor of a file drops every lock this process holds on it:
 * the claim's lock went, and another process claimed the folder while this steward saved there.
 * Each read is now refused before it opens the file, by the opening's own check, and the folder
 * stays claimed.
 */
class ClaimedLockFileReadTest {
  @TempDir Path dir;

  @Test
  void everyUnlockedRead_ofAHardLinkOfAHeldLockFile_isRefused_andTheFolderStaysClaimed()
      throws Exception {
    Path snaps = dir.resolve("snaps");
    Path journal = dir.resolve("j.log");
    try (SnapshotFolderClaim claim = new FileSnapshotStore(snaps).claim()) {
      Path lock = snaps.resolve(SnapshotFolderClaim.LOCK_FILE);
      Files.createLink(journal, lock);
      List<ThrowingCallable> reads =
          List.of(
              () -> FileJournal.scan(journal, JournalPosition.GENESIS, Map.of(), r -> {}),
              () -> FileJournal.firstSequence(journal),
              () -> FileJournal.checkLinksBefore(journal, 1),
              () -> JournalFile.read(journal));
      for (ThrowingCallable read : reads) {
        SnapshotLockFileLinkedToJournalTest.assertRefusedAsClaimedLockFile(
            "cannot read", journal, read);
      }
      SnapshotLockFileLinkedToJournalTest.assertStillClaimed(claim, snaps);
    }
  }
}
