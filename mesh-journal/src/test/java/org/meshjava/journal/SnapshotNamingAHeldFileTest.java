package org.meshjava.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A latest snapshot name in a claimed folder that is another name (a hard link) of a file this
 * process holds locked: the folder's own lock file, or a journal a steward here holds. Regression:
 * every read of the latest snapshot ({@code latest}, {@code latestHeader}, {@code latestBuffer},
 * {@code latestMapping}) opened and closed a descriptor of it, and closing any descriptor of a file
 * drops every lock this process holds on it, so another process could claim the folder (or open the
 * journal) while this steward used it. Each read now refuses it before opening it.
 */
class SnapshotNamingAHeldFileTest {
  @TempDir Path dir;

  @Test
  void everyRead_ofALatestSnapshotThatIsTheHeldLockFile_isRefused_andTheFolderStaysClaimed()
      throws Exception {
    Path snaps = dir.resolve("snaps");
    FileSnapshotStore store = new FileSnapshotStore(snaps);
    try (SnapshotFolderClaim claim = store.claim()) {
      Path planted = snaps.resolve(String.format("%020d", 7) + ".snapshot");
      Files.createLink(planted, snaps.resolve(SnapshotFolderClaim.LOCK_FILE));
      assertEveryReadRefused(store, planted);
      SnapshotLockFileLinkedToJournalTest.assertStillClaimed(claim, snaps);
    }
  }

  @Test
  void everyRead_ofALatestSnapshotThatIsAHeldJournal_isRefused_andTheJournalStillAppends()
      throws Exception {
    Path snaps = dir.resolve("snaps");
    Path journal = dir.resolve("j.log");
    FileSnapshotStore store = new FileSnapshotStore(snaps);
    Files.createDirectories(snaps);
    try (FileJournal held = FileJournal.open(journal)) {
      held.append(FileJournalTest.sealed(0));
      Path planted = snaps.resolve(String.format("%020d", 7) + ".snapshot");
      Files.createLink(planted, journal);
      assertEveryReadRefused(store, planted);
      held.append(FileJournalTest.sealed(1));
    }
  }

  private static void assertEveryReadRefused(FileSnapshotStore store, Path planted) {
    List<ThrowingCallable> reads =
        List.of(store::latest, store::latestHeader, store::latestBuffer, store::latestMapping);
    for (ThrowingCallable read : reads) {
      SnapshotException e = catchThrowableOfType(SnapshotException.class, read);
      assertThat(e).isNotNull();
      assertThat(e.reason()).isEqualTo(SnapshotException.Reason.IO);
      assertThat(e.detail())
          .startsWith("cannot read the latest snapshot " + planted + ": it is another name")
          .contains("move it out of");
    }
  }
}
