package org.meshjava.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One steward at a time per snapshot folder (SPEC.md §60.8): two stewards on two journals saving
 * into one folder delete each other's snapshots, so a second claim is refused, in this process or
 * another, and a claim whose lock file was removed stops its store saving.
 */
class SnapshotFolderClaimTest {
  @TempDir Path tmp;

  @Test
  void aSecondClaim_inThisProcess_isRefusedInUse_untilTheFirstIsClosed() throws Exception {
    Path dir = tmp.resolve("snaps");
    SnapshotFolderClaim first = new FileSnapshotStore(dir).claim();
    assertThat(dir.resolve(SnapshotFolderClaim.LOCK_FILE)).exists();
    assertThatThrownBy(() -> new FileSnapshotStore(dir).claim())
        .isInstanceOfSatisfying(
            SnapshotException.class,
            e -> {
              assertThat(e.reason()).isEqualTo(SnapshotException.Reason.IN_USE);
              assertThat(e.detail())
                  .contains("snapshot folder " + dir + " is in use by another steward");
            });
    // The refused claim let nothing go: the first still holds the folder.
    assertThat(first.intact()).isTrue();
    first.close();
    // The folder it made held no snapshot, so it is gone with the lock file.
    assertThat(dir).doesNotExist();
    new FileSnapshotStore(dir).claim().close();
  }

  /** A folder reached through a symbolic link, or through {@code ..}, is the folder claimed. */
  @Test
  void aClaimThroughALinkedFolderOrADotDotPath_isRefusedInUse() throws Exception {
    Path dir = Files.createDirectory(tmp.resolve("snaps"));
    Path linked = Files.createSymbolicLink(tmp.resolve("linked"), dir);
    Path dotDot = Files.createDirectory(tmp.resolve("other")).resolve("..").resolve("snaps");
    try (SnapshotFolderClaim first = new FileSnapshotStore(dir).claim()) {
      for (Path same : java.util.List.of(linked, dotDot)) {
        assertThatThrownBy(() -> new FileSnapshotStore(same).claim())
            .isInstanceOfSatisfying(
                SnapshotException.class,
                e -> assertThat(e.reason()).isEqualTo(SnapshotException.Reason.IN_USE));
      }
      assertThat(first.intact()).isTrue();
    }
  }

  /**
   * Regression: a symbolic link left pointing at nothing where the snapshot folder goes was named
   * by its path alone, "cannot lock snapshot folder /d/snaps: /d/snaps", saying nothing of what was
   * wrong, where the journal's refusal for the same thing says what is there. Now the claim's
   * refusal says it too, and leaves the link as it is.
   */
  @Test
  void aLinkToNothingWhereTheFolderGoes_isNamedForWhatItIs() throws Exception {
    Path nowhere = tmp.resolve("nowhere");
    Path dangling = Files.createSymbolicLink(tmp.resolve("snaps"), nowhere);
    assertThatThrownBy(() -> new FileSnapshotStore(dangling).claim())
        .isInstanceOfSatisfying(
            SnapshotException.class,
            e ->
                assertThat(e.detail())
                    .isEqualTo(
                        "cannot lock snapshot folder "
                            + dangling
                            + ": "
                            + dangling
                            + " exists and is a symbolic link to "
                            + nowhere
                            + ", not a folder"));
    assertThat(Files.isSymbolicLink(dangling)).isTrue();
    assertThat(nowhere).doesNotExist();
  }

  /**
   * Regression: a lock on the lock file held in this process by something other than a claim (a
   * tool or a test holding it through a channel of its own) makes the JDK throw an {@code
   * OverlappingFileLockException}, which has no message, and the refusal read "cannot lock snapshot
   * folder …: null", naming nothing.
   */
  @Test
  void aLockHeldInThisProcessOutsideAClaim_isNamedByItsClass_notAsNull() throws Exception {
    Path dir = Files.createDirectory(tmp.resolve("snaps"));
    Path lockFile = dir.resolve(SnapshotFolderClaim.LOCK_FILE);
    try (FileChannel ch =
            FileChannel.open(lockFile, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
        FileLock unused = ch.lock()) {
      assertThatThrownBy(() -> new FileSnapshotStore(dir).claim())
          .isInstanceOfSatisfying(
              SnapshotException.class,
              e ->
                  assertThat(e.detail())
                      .contains("cannot lock snapshot folder " + dir)
                      .contains("OverlappingFileLockException")
                      .doesNotEndWith("null"));
    }
  }

  /**
   * Regression: a claim on a folder under parents that were missing (a configured snapshot folder
   * such as {@code /var/lib/mesh/snaps/a}) made them all, and its close removed only the folder
   * itself, so a start that failed left the parents behind.
   */
  @Test
  void aClaimUnderMissingParents_removesThoseItMade_andNoneThatWasThere() throws Exception {
    Path there = Files.createDirectory(tmp.resolve("there"));
    Path top = there.resolve("a");
    Path dir = top.resolve("b").resolve("snaps");
    new FileSnapshotStore(dir).claim(tmp.resolve("x.journal")).close();
    assertThat(top).doesNotExist();
    assertThat(there).isDirectory();
  }

  @Test
  void aParentMadeByAClaim_thatGotAFileMeanwhile_stays() throws Exception {
    Path top = tmp.resolve("a");
    Path dir = top.resolve("snaps");
    SnapshotFolderClaim claim = new FileSnapshotStore(dir).claim();
    Path other = Files.writeString(top.resolve("notes.txt"), "someone else's");
    claim.close();
    assertThat(dir).doesNotExist();
    assertThat(other).hasContent("someone else's");
  }

  @Test
  void aClaimHeldByAnotherProcess_isRefusedInUse_andFreeOnceThatProcessEnds() throws Exception {
    Path dir = tmp.resolve("snaps");
    SnapshotClaimChild.whileClaimedElsewhere(
        dir,
        () ->
            assertThatThrownBy(() -> new FileSnapshotStore(dir).claim())
                .isInstanceOfSatisfying(
                    SnapshotException.class,
                    e -> {
                      assertThat(e.reason()).isEqualTo(SnapshotException.Reason.IN_USE);
                      assertThat(e.detail()).contains("in use by another steward process");
                    }));
    // Killed, it left its lock file; the kernel dropped its lock, so the folder is free.
    new FileSnapshotStore(dir).claim().close();
  }

  @Test
  void aFolderDeletedWhileClaimed_isMadeAndLockedAgainByTheNextSave() throws Exception {
    Path dir = tmp.resolve("snaps");
    FileSnapshotStore store = new FileSnapshotStore(dir);
    try (SnapshotFolderClaim claim = store.claim()) {
      store.save(FileSnapshotStoreTest.at(3));
      for (Path f : store.files()) {
        Files.delete(f);
      }
      Files.delete(claim.lockFile());
      Files.delete(dir);
      assertThat(claim.intact()).isFalse();
      store.save(FileSnapshotStoreTest.at(4));
      assertThat(claim.intact()).isTrue();
      assertThat(store.files()).hasSize(1);
      assertThatThrownBy(() -> new FileSnapshotStore(dir).claim())
          .isInstanceOf(SnapshotException.class)
          .hasMessageContaining("in use by another steward");
    }
  }

  @Test
  void aStoreWhoseFolderAnotherStewardClaimedAfterItsLockFileWentAway_refusesToSave()
      throws Exception {
    Path dir = tmp.resolve("snaps");
    FileSnapshotStore store = new FileSnapshotStore(dir);
    try (SnapshotFolderClaim claim = store.claim()) {
      store.save(FileSnapshotStoreTest.at(3));
      Files.delete(claim.lockFile());
      try (SnapshotFolderClaim other = new FileSnapshotStore(dir).claim()) {
        assertThat(other.intact()).isTrue();
        assertThatThrownBy(() -> store.save(FileSnapshotStoreTest.at(4)))
            .isInstanceOfSatisfying(
                SnapshotException.class,
                e -> {
                  assertThat(e.reason()).isEqualTo(SnapshotException.Reason.IN_USE);
                  assertThat(e.detail()).contains("another steward has claimed the folder since");
                });
        assertThat(store.files()).hasSize(1);
      }
    }
    // The folder holds a snapshot, so neither close removed it.
    assertThat(store.files()).hasSize(1);
  }
}
