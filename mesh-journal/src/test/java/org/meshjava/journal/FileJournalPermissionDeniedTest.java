package org.meshjava.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A journal whose folder or file this user may not write is refused {@code IO} with what to do, not
 * only "permission denied". Regression: {@code mesh serve --journal /srv/mesh/j.journal} in a
 * folder owned by another user said "cannot open /srv/mesh/j.journal: permission denied" and
 * stopped there. The tests run as root in CI, where nothing is denied, so the denial is staged at
 * the seams the opening goes through: making the folder, and opening the file to lock it.
 */
class FileJournalPermissionDeniedTest {
  /**
   * Worded for every opener. Regression: it named {@code mesh serve --journal} also where a {@code
   * mesh journal} command (archive, resume-grants, import) was refused, for which another path is
   * no remedy.
   */
  private static final String WHAT_TO_DO =
      "; grant this user write access to the journal and its folder, or run as the user who owns"
          + " them (a steward starting afresh may be given another journal path instead)";

  @TempDir Path dir;

  @Test
  void aFolderThatCannotBeMade_saysWhatToDo() throws Exception {
    Path folder = dir.toRealPath().resolve("srv");
    Path journal = folder.resolve("j.journal");
    Forcer denying = denyingFolders(folder);
    assertRefused(
        () -> FileJournal.open(journal, FileChannel::tryLock, FileJournal.Syncer.FORCE, denying),
        "cannot open " + journal + ": permission denied: " + folder + WHAT_TO_DO);
  }

  @Test
  void aFileThatCannotBeOpenedForWriting_saysWhatToDo() throws Exception {
    Path journal = Files.createFile(dir.toRealPath().resolve("j.journal"));
    FileJournal.Locker denying =
        new FileJournal.Locker() {
          @Override
          public java.nio.channels.FileLock tryLock(FileChannel channel) throws IOException {
            return channel.tryLock();
          }

          @Override
          public FileChannel open(Path real) throws IOException {
            throw new AccessDeniedException(real.toString());
          }
        };
    assertRefused(
        () -> FileJournal.open(journal, denying),
        "cannot open " + journal + ": permission denied" + WHAT_TO_DO);
    // Refused without a trace: the journal opens as soon as access is given.
    try (FileJournal j = FileJournal.open(journal)) {
      assertThat(j.path()).isEqualTo(journal);
    }
  }

  /**
   * An archive whose journal opens but whose segment folder cannot be made (the journal's folder
   * owned by another user, the journal file alone this user's). Regression: it was refused "cannot
   * archive J: permission denied: J.segments" and stopped there, unlike a denied opening or
   * snapshot save, which say what to do. Nothing is moved: every record stays in the live file.
   */
  @Test
  void anArchiveWhoseSegmentFolderCannotBeMade_saysWhatToDo() throws Exception {
    Path folder = dir.toRealPath();
    Path journal = folder.resolve("j.journal");
    FileJournalStreamTest.journal(journal, 6);
    java.util.List<byte[]> lines = LiveFileOlderThanArchiveTest.lines(journal);
    Path segments = org.meshjava.journal.internal.JournalSegments.directory(journal);
    assertRefused(
        () ->
            FileJournal.archive(
                journal,
                JournalArchiveTest.positionAt(lines, 3, -1),
                new java.util.HashMap<>(),
                denyingFolders(segments)),
        "cannot archive "
            + journal
            + ": permission denied: "
            + segments
            + "; grant this user write access to the journal's folder "
            + folder
            + " and to its segment folder "
            + segments
            + ", or run as the user who owns them");
    assertThat(segments).doesNotExist();
    assertThat(FileJournalStreamTest.scan(journal, JournalPosition.GENESIS)).hasSize(6);
  }

  /**
   * A start (or a {@code mesh journal} command) that finds what an archive killed midway left
   * beside the journal, and may not remove it: the journal's folder is another user's. Regression:
   * it was refused "cannot recover J: permission denied: J.archiving" and stopped there. Seen run
   * as another user; staged here by asking for the refusal the removal's failure becomes, as root
   * may remove anything.
   */
  @Test
  void aKilledArchivesCopyThatCannotBeRemoved_saysWhatToDo() throws Exception {
    Path folder = dir.toRealPath();
    Path journal = folder.resolve("j.journal");
    Path copy = folder.resolve("j.journal" + JournalOwnedName.ARCHIVING);
    JournalException e =
        FileJournal.recoveryRefused(journal, journal, new AccessDeniedException(copy.toString()));
    assertRefused(
        () -> {
          throw e;
        },
        "cannot recover "
            + journal
            + ": permission denied: "
            + copy
            + "; grant this user write access to the journal's folder "
            + folder
            + " and to its segment folder "
            + org.meshjava.journal.internal.JournalSegments.directory(journal)
            + ", or run as the user who owns them");
  }

  /**
   * An opening that finds a pending segment an archive killed at its cut left, and is denied as it
   * settles it. Regression: the opening's settling was tested only through the refusal's builder
   * (above), so settling that refused "cannot recover P: permission denied" and nothing more
   * passed; this goes through the opening, staging the denial at the forcer it settles through
   * (FoldersDeniedForRealTest denies the folders for real, in the slow suite).
   */
  @Test
  void aPendingSegmentThatCannotBeSettled_saysWhatToDo() throws Exception {
    Path folder = dir.toRealPath();
    Path journal = SettledSegmentCutForcedTest.archivedOnce(folder.resolve("j.journal"));
    SettledSegmentCutForcedTest.archiveKilledAtTheCut(journal, 8);
    Path segments = org.meshjava.journal.internal.JournalSegments.directory(journal);
    Path pending = org.meshjava.journal.internal.JournalSegments.pendingFile(journal, 3);
    Forcer denying =
        (channel, file, metaData) -> {
          if (file.equals(folder)) {
            throw new AccessDeniedException(file.toString());
          }
          channel.force(metaData);
        };
    assertRefused(
        () -> FileJournal.open(journal, FileChannel::tryLock, FileJournal.Syncer.FORCE, denying),
        "cannot recover "
            + pending
            + ": permission denied: "
            + folder
            + "; grant this user write access to the journal's folder "
            + folder
            + " and to its segment folder "
            + segments
            + ", or run as the user who owns them");
    assertThat(pending).exists();
  }

  /**
   * A forcer that forces as the OS one does and refuses to make {@code folder} or any folder in it,
   * as a folder owned by another user does: {@code AccessDeniedException} naming {@code folder}.
   * Other folders are made as the OS forcer makes them.
   */
  static Forcer denyingFolders(Path folder) {
    return new Forcer() {
      @Override
      public void force(FileChannel channel, Path file, boolean metaData) throws IOException {
        channel.force(metaData);
      }

      @Override
      public void createDirectories(Path d) throws IOException {
        if (!d.toAbsolutePath().startsWith(folder.toAbsolutePath())) {
          Forcer.super.createDirectories(d);
          return;
        }
        throw new AccessDeniedException(folder.toString());
      }
    };
  }

  private static void assertRefused(
      org.assertj.core.api.ThrowableAssert.ThrowingCallable open, String message) {
    JournalException e = catchThrowableOfType(JournalException.class, open);
    assertThat(e.reason()).isEqualTo(JournalException.Reason.IO);
    assertThat(e.getMessage()).isEqualTo(message);
    assertThat(e.getCause()).isInstanceOf(AccessDeniedException.class);
  }
}
