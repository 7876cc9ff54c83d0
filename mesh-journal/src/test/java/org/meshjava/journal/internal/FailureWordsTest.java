package org.meshjava.journal.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The words for a name met already taken say what took it. Regression: every {@link
 * FileAlreadyExistsException} read "X exists and is not a folder", also where X was a folder that
 * stood where a file was to be made, and where X was gone by the time the words were read. Only a
 * name where a folder was wanted (one that folders are made at, or one above the name worked on) is
 * named as not a folder.
 */
class FailureWordsTest {
  @TempDir Path dir;

  @Test
  void aFolderWhereAFileWasToBeMade_isNamedAsAFolder() throws Exception {
    Path folder = Files.createDirectory(dir.resolve("j.journal.archiving"));
    assertThat(
            FailureWords.about(
                dir.resolve("j.journal"), new FileAlreadyExistsException(folder.toString())))
        .isEqualTo(folder + " exists and is a folder, where a file was to be made");
  }

  @Test
  void aFileWhereAFolderWasToBeMade_isNamedAsAFile_notAFolder() throws Exception {
    Path file = Files.writeString(dir.resolve("j.journal.segments"), "mine");
    java.nio.file.NotDirectoryException e =
        org.assertj.core.api.Assertions.catchThrowableOfType(
            java.nio.file.NotDirectoryException.class, () -> OwnerOnly.createDirectories(file));
    assertThat(FailureWords.about(dir.resolve("j.journal"), e))
        .isEqualTo(file + " exists and is a file, not a folder");
    Path under = file.resolve("x.journal");
    assertThat(FailureWords.about(under, new FileAlreadyExistsException(file.toString())))
        .isEqualTo(file + " exists and is a file, not a folder");
    assertThat(file).hasContent("mine");
  }

  /**
   * A file where a file was to be made (a marker, a copy beside the journal) is named for what it
   * is. Regression: it read "X exists and is a file, not a folder", where no folder was wanted.
   */
  @Test
  void aFileOrALinkWhereAFileWasToBeMade_isNamedForWhatItIs_andNoFolderIsSpokenOf()
      throws Exception {
    Path file = Files.writeString(dir.resolve("j.journal.segments-named-after-cut"), "mine");
    assertThat(
            FailureWords.about(
                dir.resolve("j.journal"), new FileAlreadyExistsException(file.toString())))
        .isEqualTo(file + " exists and is a file");
    Path link = Files.createSymbolicLink(dir.resolve("j.journal.archiving"), dir.resolve("x"));
    assertThat(
            FailureWords.about(
                dir.resolve("j.journal"), new FileAlreadyExistsException(link.toString())))
        .isEqualTo(link + " exists and is a symbolic link to " + dir.resolve("x"));
  }

  @Test
  void aNameFreedSinceItWasMet_saysSo_andOneNotNamedIsIt() {
    Path gone = dir.resolve("gone");
    assertThat(FailureWords.about(dir, new FileAlreadyExistsException(gone.toString())))
        .isEqualTo(gone + " was in the way, and is gone since");
    assertThat(FailureWords.about(dir, new FileAlreadyExistsException(null)))
        .isEqualTo("it exists");
  }
}
