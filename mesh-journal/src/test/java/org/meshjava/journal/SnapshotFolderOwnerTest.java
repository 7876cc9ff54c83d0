package org.meshjava.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two journals configured with one snapshot folder (SPEC.md §60.8, "One steward per folder"): the
 * folder records whose snapshots it holds, and a claim for another journal is refused, naming both,
 * before it takes the folder's lock. Before, the other journal's steward could take the lock first
 * and only then be refused by the snapshot it found, while the steward whose snapshot it was had
 * been refused by that lock meanwhile: neither served (8 of 100 rounds of
 * mesh-bench/crash/race.sh).
 */
class SnapshotFolderOwnerTest {
  @TempDir Path tmp;

  private Path dir;
  private Path a;
  private Path b;
  private Path aReal;
  private Path bReal;

  @BeforeEach
  void twoJournals() throws Exception {
    dir = tmp.resolve("snaps");
    a = Files.createFile(tmp.resolve("a.journal"));
    b = Files.createFile(tmp.resolve("b.journal"));
    aReal = a.toRealPath();
    bReal = b.toRealPath();
  }

  /** A's steward claimed the folder, saved a snapshot there, and stopped. */
  private void aSavedASnapshot() throws Exception {
    FileSnapshotStore store = new FileSnapshotStore(dir);
    try (SnapshotFolderClaim claim = store.claim(a)) {
      store.save(FileSnapshotStoreTest.at(3));
    }
  }

  /** What refuses B's claim on the folder, which must be refused {@code IN_USE}. */
  private String bsClaimRefusedInUse() {
    try {
      new FileSnapshotStore(dir).claim(b).close();
    } catch (SnapshotException e) {
      assertThat(e.reason()).isEqualTo(SnapshotException.Reason.IN_USE);
      return e.detail();
    }
    throw new AssertionError("journal b's steward claimed the folder");
  }

  /**
   * The folder's record of its journal replaced by a named pipe, or by a link to {@code /dev/zero},
   * counts as no record, as an unreadable one does: the journal's claim is taken at once.
   * Regression: reading the record waited on the pipe for ever, or read zeros until the heap was
   * full, at every start of the steward.
   */
  @Test
  void aRecordThatIsAPipeOrADevice_countsAsNone_andTheClaimDoesNotWait() throws Exception {
    aSavedASnapshot();
    Path record = dir.resolve(SnapshotFolderOwner.FILE);
    Files.delete(record);
    NamedPipes.make(record);
    for (int form = 0; form < 2; form++) {
      if (form == 1) {
        Files.delete(record);
        Files.createSymbolicLink(record, Path.of("/dev/zero"));
      }
      org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(
          java.time.Duration.ofSeconds(10),
          () -> {
            assertThat(SnapshotFolderOwner.recorded(dir)).isEmpty();
            new FileSnapshotStore(dir).claim(a).close();
          });
    }
  }

  @Test
  void theOtherJournalsClaim_onAFolderHoldingASnapshots_isRefusedBeforeTheLock_andAStartsAfterIt()
      throws Exception {
    aSavedASnapshot();
    assertThat(dir.resolve(SnapshotFolderOwner.FILE)).hasContent(aReal.toString());

    // B tries first, as in the race: refused by name, holding nothing.
    assertThat(bsClaimRefusedInUse())
        .contains("snapshot folder " + dir + " holds the snapshots of journal " + aReal)
        .contains("not of " + bReal)
        .contains("give each journal a snapshot folder of its own");
    // So A, trying next, is not turned away by B's lock.
    try (SnapshotFolderClaim claim = new FileSnapshotStore(dir).claim(a)) {
      assertThat(claim.intact()).isTrue();
      // And while A runs, B is refused by the record, read before the lock: had B taken the lock
      // to find out, A starting at that moment would have been refused by it.
      assertThatThrownBy(() -> new FileSnapshotStore(dir).claim(b))
          .isInstanceOf(SnapshotException.class)
          .hasMessageContaining("holds the snapshots of journal " + aReal)
          .hasMessageNotContaining("in use by another steward");
    }
  }

  @Test
  void twoJournalsOnAnEmptyFolder_theFirstLockWins_andTheOtherIsToldWhoseItIs() throws Exception {
    try (SnapshotFolderClaim first = new FileSnapshotStore(dir).claim(a)) {
      assertThat(bsClaimRefusedInUse())
          .contains("snapshot folder " + dir + " is in use by another steward")
          .contains("recorded as journal " + aReal + "'s");
      assertThat(first.intact()).isTrue();
    }
    // Nothing was saved: the folder the claim made is gone, record and all.
    assertThat(dir).doesNotExist();
  }

  @Test
  void aRecordNamingAJournalThatIsGone_refusesNothing_andTheNextSaveRecordsItsOwn()
      throws Exception {
    aSavedASnapshot();
    Files.delete(a);
    FileSnapshotStore store = new FileSnapshotStore(dir);
    try (SnapshotFolderClaim claim = store.claim(b)) {
      store.save(FileSnapshotStoreTest.at(4));
    }
    assertThat(dir.resolve(SnapshotFolderOwner.FILE)).hasContent(bReal.toString());
  }

  @Test
  void theSameJournalThroughASymlink_isTheFoldersOwn() throws Exception {
    aSavedASnapshot();
    Path link = Files.createSymbolicLink(tmp.resolve("link.journal"), a.getFileName());
    new FileSnapshotStore(dir).claim(link).close();
  }

  @Test
  void snapshotsWithNoRecord_areNotClaimedByName_untilTheClaimantSaves() throws Exception {
    FileSnapshotStore old = new FileSnapshotStore(dir);
    try (SnapshotFolderClaim claim = old.claim()) {
      old.save(FileSnapshotStoreTest.at(3));
    }
    // Whose they are is for the steward's checks of the snapshot to find, not for the claim.
    FileSnapshotStore store = new FileSnapshotStore(dir);
    try (SnapshotFolderClaim claim = store.claim(b)) {
      assertThat(dir.resolve(SnapshotFolderOwner.FILE)).doesNotExist();
      store.save(FileSnapshotStoreTest.at(4));
    }
    assertThat(dir.resolve(SnapshotFolderOwner.FILE)).hasContent(bReal.toString());
  }
}
