package org.meshjava.journal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.journal.FileJournalForceTest.Forced;
import org.meshjava.journal.FileJournalForceTest.Recorder;

/**
 * The snapshot folder, and each folder made above it, is durable before a snapshot is forced into
 * it: a save or a claim that makes it forces each new folder's name in the folder above it, from
 * the highest down, as {@link FileJournal#open} does for a journal's folders. Without it a power
 * cut could take the folder's name, and every snapshot in it, though each snapshot's sync
 * succeeded. The {@link Forcer} seam records what was forced; a power cut cannot be staged here.
 */
class SnapshotNewFoldersForcedTest {
  @TempDir Path dir;

  private Path top() {
    return dir.toAbsolutePath().resolve("a");
  }

  private Path folder() {
    return top().resolve("b").resolve("snaps");
  }

  private static java.util.List<Path> foldersForced(Recorder r) {
    return r.forced.stream().map(Forced::file).filter(Files::isDirectory).toList();
  }

  @Test
  void aSave_intoFoldersMadeOnTheSpot_forcesEachNewFoldersName_beforeTheSnapshot()
      throws Exception {
    Recorder r = new Recorder(folder());
    new FileSnapshotStore(folder(), r).save(FileSnapshotStoreTest.at(10));
    assertThat(foldersForced(r))
        .containsExactly(dir.toAbsolutePath(), top(), top().resolve("b"), folder());
    assertThat(r.forced.get(3).file().getFileName().toString())
        .isEqualTo("00000000000000000010.snapshot.tmp");
  }

  @Test
  void aClaim_ofAFolderMadeOnTheSpot_forcesEachNewFoldersName() throws Exception {
    Recorder r = new Recorder(folder());
    FileSnapshotStore store = new FileSnapshotStore(folder(), r);
    try (SnapshotFolderClaim claim = store.claim(dir.resolve("j.log"))) {
      // ... then the folder itself, for the name of journal.path the claim wrote in it
      // (SnapshotFolderOwnerForcedTest)
      assertThat(foldersForced(r))
          .containsExactly(dir.toAbsolutePath(), top(), top().resolve("b"), folder());
      r.forced.clear();
      store.save(FileSnapshotStoreTest.at(10));
      // The folder is there by now: only the snapshot's rename in it is forced.
      assertThat(foldersForced(r)).containsExactly(folder());
    }
  }

  @Test
  void aClaimedFolderDeleted_isMadeAgainAtTheNextSave_withItsNameForced() throws Exception {
    Recorder r = new Recorder(folder());
    FileSnapshotStore store = new FileSnapshotStore(folder(), r);
    try (SnapshotFolderClaim claim = store.claim()) {
      Files.delete(claim.lockFile());
      Files.delete(folder());
      r.forced.clear();
      store.save(FileSnapshotStoreTest.at(10));
      assertThat(foldersForced(r)).containsExactly(top().resolve("b"), folder());
    }
  }
}
