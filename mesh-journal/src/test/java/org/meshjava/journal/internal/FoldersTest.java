package org.meshjava.journal.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.nio.file.Files;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.journal.FileJournal;
import org.meshjava.journal.JournalException;

/**
 * {@link Folders#create} where something other than a folder stands above the folders to be made:
 * it names that, whatever the depth. The JDK fails a file at one of the names with {@code
 * FileAlreadyExistsException} naming it, but a file further up fails the first folder made beneath
 * it with "Not a directory", naming that folder, which does not exist.
 */
class FoldersTest {
  @TempDir Path dir;

  /**
   * Regression: {@code notes.txt/keys/inner} failed "Not a directory", naming {@code
   * notes.txt/keys}, a folder that is not there, and never the file that is.
   */
  @Test
  void aFileTwoFoldersUp_isNamedAsWhatIsInTheWay() throws Exception {
    Path file = Files.writeString(dir.resolve("notes.txt"), "mine");
    NotDirectoryException e =
        catchThrowableOfType(
            NotDirectoryException.class,
            () -> Folders.create(file.resolve("keys").resolve("inner")));
    assertThat(e).as("what Folders.create threw").isNotNull();
    assertThat(e.getFile()).isEqualTo(file.toString());
    assertThat(file).hasContent("mine");
  }

  /** A journal whose folder is under a file: the open says which file stands in the way. */
  @Test
  void aJournalInAFolderUnderAFile_isRefusedNamingTheFile() throws Exception {
    Path file = Files.writeString(dir.resolve("notes.txt"), "mine");
    Path journal = file.resolve("journal").resolve("j.log");
    JournalException e =
        catchThrowableOfType(JournalException.class, () -> FileJournal.open(journal).close());
    assertThat(e).isNotNull();
    assertThat(e.reason()).isEqualTo(JournalException.Reason.IO);
    assertThat(e.detail())
        .isEqualTo("cannot open " + journal + ": " + file + " exists and is a file, not a folder");
    assertThat(file).hasContent("mine");
  }
}
