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
    assertRefused(journal, "cannot open " + journal + ": " + notes + " exists and is not a folder");
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
