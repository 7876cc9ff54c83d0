package org.meshjava.journal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A journal that cannot be opened is refused {@code IO} in one sentence that names the path once
 * and says why. Regression: {@code mesh serve --journal} on a read-only mount said "cannot open
 * /m/j.journal: /m/j.journal: Read-only file system" (the JDK's message is the file, then the
 * reason), and a journal under a file where its folder should be said only the file's name. A
 * read-only mount needs root to stage; a loop of symbolic links fails with a reason the same way.
 */
class FileJournalOpenRefusalTest {
  @TempDir Path dir;

  @Test
  void aFailureWithAReason_namesThePathOnce() throws Exception {
    Path loop = dir.resolve("loop.journal");
    Files.createSymbolicLink(loop, loop);
    assertRefused(loop, "cannot open " + loop + ": too many levels of symbolic links");
  }

  @Test
  void aFileWhereTheJournalsFolderGoes_isNamedAsInTheWay() throws Exception {
    Path notes = Files.writeString(dir.resolve("notes.txt"), "mine");
    Path journal = notes.resolve("j.journal");
    assertRefused(
        journal, "cannot open " + journal + ": " + notes + " exists and is a file, not a folder");
    assertThat(notes).hasContent("mine");
  }

  /**
   * Regression: whatever stood where the journal's folder goes was named as "exists and is not a
   * folder", a link to nothing too, which sent the operator looking for a file that was not there.
   * Now the refusal says what is there: a link with where it leads, a named pipe.
   */
  @Test
  void aLinkOrAPipeWhereTheJournalsFolderGoes_isNamedForWhatItIs() throws Exception {
    Path nowhere = dir.resolve("nowhere");
    Path dangling = Files.createSymbolicLink(dir.resolve("dangling"), nowhere);
    assertRefused(
        dangling.resolve("j.journal"),
        "cannot open "
            + dangling.resolve("j.journal")
            + ": "
            + dangling
            + " exists and is a symbolic link to "
            + nowhere
            + ", not a folder");
    Path notes = Files.writeString(dir.resolve("notes.txt"), "mine");
    Path toFile = Files.createSymbolicLink(dir.resolve("to-file"), notes);
    assertRefused(
        toFile.resolve("j.journal"),
        "cannot open "
            + toFile.resolve("j.journal")
            + ": "
            + toFile
            + " exists and is a symbolic link to "
            + notes
            + ", not a folder");
    Path pipe = NamedPipes.make(dir.resolve("pipe"));
    assertRefused(
        pipe.resolve("j.journal"),
        "cannot open "
            + pipe.resolve("j.journal")
            + ": "
            + pipe
            + " exists and is a named pipe, not a folder");
    assertThat(Files.isSymbolicLink(dangling)).isTrue();
    assertThat(nowhere).doesNotExist();
    assertThat(notes).hasContent("mine");
  }

  /** Opening {@code journal} is refused {@code IO} with exactly {@code message}. */
  private static void assertRefused(Path journal, String message) {
    JournalException e =
        org.assertj.core.api.Assertions.catchThrowableOfType(
            JournalException.class, () -> FileJournal.open(journal));
    assertThat(e.reason()).isEqualTo(JournalException.Reason.IO);
    assertThat(e.getMessage()).isEqualTo(message);
  }
}
