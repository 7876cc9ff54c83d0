package org.meshjava.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A snapshot folder this user may not write or read is refused {@code IO} saying what to do, as a
 * denied journal is. Regression: a save into a folder owned by another user said "cannot write
 * .../00000000000000000020.snapshot: .../snaps" (the JDK's message, the path alone), and a denied
 * read "cannot read the latest snapshot ...: AccessDeniedException". The tests run as root in CI,
 * where nothing is denied, so the denial is staged at the store's seams: making the folder, listing
 * it, and the read after a file's size check.
 */
class SnapshotFolderPermissionDeniedTest {
  @TempDir Path tmp;

  @Test
  void aSaveIntoAFolderThatCannotBeMade_saysWhatToDo() throws Exception {
    Path dir = tmp.resolve("snaps");
    FileSnapshotStore store =
        new FileSnapshotStore(dir, FileJournalPermissionDeniedTest.denyingFolders(dir));
    assertRefused(
        () -> store.save(FileSnapshotStoreTest.at(20)),
        "cannot write "
            + dir.resolve("00000000000000000020.snapshot")
            + ": permission denied: "
            + dir
            + "; grant this user write access to the snapshot folder "
            + dir
            + " (or, where it is yet to be made, to the folder it goes in), or keep the snapshots"
            + " in another folder");
  }

  /**
   * Regression: a steward's start claims its snapshot folder before any save, and a folder it could
   * not make or write was refused there as "cannot lock snapshot folder …: permission denied",
   * without the remedy a save gives.
   */
  @Test
  void aClaimOfAFolderThatCannotBeMade_saysWhatToDo() throws Exception {
    Path dir = tmp.resolve("snaps");
    FileSnapshotStore store =
        new FileSnapshotStore(dir, FileJournalPermissionDeniedTest.denyingFolders(dir));
    assertRefused(
        store::claim,
        "cannot lock snapshot folder "
            + dir
            + ": permission denied; grant this user write access to the snapshot folder "
            + dir
            + " (or, where it is yet to be made, to the folder it goes in), or keep the snapshots"
            + " in another folder");
  }

  @Test
  void aLatestSnapshotThatCannotBeRead_saysWhatToDo() throws Exception {
    Path dir = tmp.resolve("snaps");
    new FileSnapshotStore(dir).save(FileSnapshotStoreTest.at(10));
    Path latest = dir.resolve("00000000000000000010.snapshot");
    FileSnapshotStore store =
        new FileSnapshotStore(
            dir,
            Forcer.OS,
            Snapshot.MAX_BYTES,
            file -> {
              throw new AccessDeniedException(file.toString());
            });
    assertRefused(
        store::latest,
        "cannot read the latest snapshot "
            + latest
            + ": permission denied; grant this user read access to the snapshot folder "
            + dir
            + " and the snapshots in it, or run as the user who owns them");
    // Refused without a trace: the snapshot reads as soon as access is given.
    assertThat(new FileSnapshotStore(dir).latest()).isPresent();
    assertThat(Files.exists(latest)).isTrue();
  }

  /**
   * The listing that finds the latest snapshot is denied first where the folder itself may not be
   * read: every read (a steward's start, {@code mesh journal verify}, an archive) says so, and what
   * to do, as a denied snapshot file does.
   */
  @Test
  void aSnapshotFolderThatCannotBeListed_saysWhatToDo() throws Exception {
    Path dir = tmp.resolve("snaps");
    new FileSnapshotStore(dir).save(FileSnapshotStoreTest.at(10));
    FileSnapshotStore store =
        new FileSnapshotStore(
            dir,
            files -> {
              throw new AccessDeniedException(files.directory().toString());
            });
    String detail =
        "cannot read "
            + dir
            + ": permission denied; grant this user read access to the snapshot folder "
            + dir
            + " and the snapshots in it, or run as the user who owns them";
    assertRefused(store::latest, detail);
    assertRefused(store::latestHeader, detail);
    assertRefused(store::latestMapping, detail);
    // Refused without a trace: the snapshot reads as soon as access is given.
    assertThat(new FileSnapshotStore(dir).latest()).isPresent();
  }

  /**
   * A save whose folder cannot be listed after the new snapshot is in place (to delete the old
   * ones) still succeeds, and says so once at WARN, naming the folder and why; once a listing works
   * again, the next that fails is said again. Regression: it said nothing, the old snapshots piling
   * up unseen until a read of the folder failed.
   */
  @Test
  void aFolderThatCannotBeListedToDropOldSnapshots_isSaidOnceAtWarn_untilAListingWorksAgain()
      throws Exception {
    Path dir = tmp.resolve("snaps");
    int[] listings = {0};
    // Each save lists the folder twice: for the latest's mode before its rename, then to delete
    // the old ones; the second is denied in the first, second and fourth saves.
    FileSnapshotStore store =
        new FileSnapshotStore(
            dir,
            files -> {
              int n = ++listings[0];
              if (n == 2 || n == 4 || n == 8) {
                throw new AccessDeniedException(files.directory().toString());
              }
              return files.list();
            });
    PrintStream err = System.err;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
    List<String> warned;
    try {
      store.save(FileSnapshotStoreTest.at(10));
      store.save(FileSnapshotStoreTest.at(20));
      warned = warnings(captured);
      store.save(FileSnapshotStoreTest.at(30));
      store.save(FileSnapshotStoreTest.at(40));
    } finally {
      System.setErr(err);
    }
    assertThat(listings[0]).isEqualTo(8);
    assertThat(warned)
        .singleElement()
        .asString()
        .contains("cannot list snapshot folder " + dir + " to delete the snapshots older")
        .contains(": permission denied;");
    // Quiet while the listing keeps failing, said again once one has worked in between.
    assertThat(warnings(captured)).hasSize(2);
    assertThat(new FileSnapshotStore(dir).latest()).isPresent();
  }

  private static List<String> warnings(ByteArrayOutputStream captured) {
    return captured
        .toString(StandardCharsets.UTF_8)
        .lines()
        .filter(l -> l.contains(" WARN "))
        .toList();
  }

  private static void assertRefused(ThrowingCallable call, String detail) {
    SnapshotException e = catchThrowableOfType(SnapshotException.class, call);
    assertThat(e.reason()).isEqualTo(SnapshotException.Reason.IO);
    assertThat(e.detail()).isEqualTo(detail);
    assertThat(e.getCause()).isInstanceOf(AccessDeniedException.class);
  }
}
