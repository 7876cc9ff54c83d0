package org.meshjava.journal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.journal.FileJournalForceTest.Forced;
import org.meshjava.journal.FileJournalForceTest.Recorder;

/**
 * The snapshot folder's record of its journal ({@code journal.path}, SPEC.md 60.8) is forced, its
 * bytes and then its name, before the claim or save that wrote it goes on. Lost to a power cut, the
 * folder would be taken by its name alone, and a copy of the journal with its folder made
 * afterwards would no longer be refused while the original runs.
 */
class SnapshotFolderOwnerForcedTest {
  @TempDir Path dir;

  /**
   * Regression: the record was written and renamed into place without a force, so a power cut could
   * leave it empty or missing.
   */
  @Test
  void theRecordWrittenAtAClaim_isForced_thenItsName() throws Exception {
    Path folder = dir.resolve("snaps");
    Files.createDirectory(folder);
    Path record = folder.resolve(SnapshotFolderOwner.FILE);
    Recorder r = new Recorder(record);
    FileSnapshotStore store = new FileSnapshotStore(folder, r);
    Path journal = dir.resolve("j.log");
    try (SnapshotFolderClaim claim = store.claim(journal)) {
      assertThat(record).exists();
      Path tmp = folder.resolve(SnapshotFolderOwner.FILE + ".tmp");
      long bytes = Files.size(record);
      assertThat(bytes).isPositive();
      assertThat(r.forced)
          .containsSubsequence(new Forced(tmp, bytes, true), new Forced(folder, 1, true));
    }
  }

  @Test
  void theRecordWrittenAtAFirstSave_isForced_thenItsName() throws Exception {
    Path folder = dir.resolve("snaps");
    // snapshots a version before the record wrote: recorded at this steward's first save
    new FileSnapshotStore(folder).save(FileSnapshotStoreTest.at(5));
    Path record = folder.resolve(SnapshotFolderOwner.FILE);
    assertThat(record).doesNotExist();
    Recorder r = new Recorder(record);
    FileSnapshotStore store = new FileSnapshotStore(folder, r);
    try (SnapshotFolderClaim claim = store.claim(dir.resolve("j.log"))) {
      assertThat(record).doesNotExist();
      store.save(FileSnapshotStoreTest.at(10));
      Path tmp = folder.resolve(SnapshotFolderOwner.FILE + ".tmp");
      assertThat(r.forced)
          .containsSubsequence(
              new Forced(tmp, Files.size(record), true), new Forced(folder, 1, true));
    }
  }
}
