package org.meshjava.journal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The journal a start created is removed by its own close, under its lock, when the steward never
 * served; never by a step after the lock was let go (the failed-start cleanup once removed the file
 * after the steward had closed it, when another steward could hold it).
 */
class CreatedJournalTest {
  @TempDir Path tmp;

  @Test
  void close_beforeTheStewardServes_removesTheFileAndItsSnapshotFolder() throws Exception {
    Path journal = tmp.resolve("new.journal");
    CreatedJournal created = new CreatedJournal(FileJournal.open(journal));
    FileSnapshotStore store = FileSnapshotStore.beside(journal);
    SnapshotFolderClaim claim = store.claim(journal);
    Path snapshots = store.directory();
    Files.writeString(snapshots.resolve("0.snapshot"), "x");
    created.snapshots(claim);
    created.close();
    assertThat(journal).doesNotExist();
    assertThat(snapshots).doesNotExist();
    assertThat(claim.held()).isFalse();
    created.close(); // a second close (the command's, after the steward's) does nothing
    claim.close(); // nor the claim's, after it
  }

  /** The folder's claim removes only what it made: a folder there before stays, with its files. */
  @Test
  void close_beforeTheStewardServes_leavesASnapshotFolderThatWasThereBefore() throws Exception {
    Path journal = tmp.resolve("new.journal");
    CreatedJournal created = new CreatedJournal(FileJournal.open(journal));
    Path snapshots = Files.createDirectory(tmp.resolve("snapshots"));
    Path before = Files.writeString(snapshots.resolve("notes.txt"), "mine");
    SnapshotFolderClaim claim = new FileSnapshotStore(snapshots).claim(journal);
    created.snapshots(claim);
    created.close();
    assertThat(journal).doesNotExist();
    assertThat(before).hasContent("mine");
    assertThat(claim.held()).isFalse();
  }

  @Test
  void close_onceTheStewardServes_keepsTheFile() throws Exception {
    Path journal = tmp.resolve("new.journal");
    CreatedJournal created = new CreatedJournal(FileJournal.open(journal));
    created.keep();
    created.close();
    assertThat(journal).exists();
    try (FileJournal again = FileJournal.open(journal)) {
      assertThat(again.recovered()).isEmpty();
    }
  }

  @Test
  void close_afterTheLockWasLetGo_leavesTheFileThatAnotherStewardNowHolds() throws Exception {
    Path journal = tmp.resolve("new.journal");
    FileJournal first = FileJournal.open(journal);
    CreatedJournal created = new CreatedJournal(first);
    first.close(); // the lock is gone: the file may be anyone's now
    try (FileJournal other = FileJournal.open(journal)) {
      created.close();
      assertThat(journal).exists();
      assertThat(other.refusesAppends()).isEmpty();
      assertThat(other.locked()).isTrue();
    }
  }
}
