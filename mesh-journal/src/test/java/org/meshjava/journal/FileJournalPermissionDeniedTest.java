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
   * A forcer that forces as the OS one does and refuses to make any folder, as a folder owned by
   * another user does: {@code AccessDeniedException} naming {@code folder}.
   */
  static Forcer denyingFolders(Path folder) {
    return new Forcer() {
      @Override
      public void force(FileChannel channel, Path file, boolean metaData) throws IOException {
        channel.force(metaData);
      }

      @Override
      public void createDirectories(Path d) throws IOException {
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
