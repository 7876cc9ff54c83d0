package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The port file's folder removed while {@code mesh serve} started (after its check, before it
 * listened): writing the file is refused, and the folder is not made again. It was: the write made
 * missing folders, so a folder {@code mesh serve} had promised not to make appeared after all.
 */
class PortFileFolderGoneTest {
  @TempDir Path tmp;

  @Test
  void aPortFileWhoseFolderWasRemoved_isRefused_andTheFolderIsNotMade() throws Exception {
    Path folder = Files.createDirectory(tmp.resolve("run"));
    Path portFile = folder.resolve("steward.port");
    ServeCommand.checkPortFile(portFile);
    Files.delete(folder);

    assertThatThrownBy(() -> GrantFiles.writeLine(portFile, "8080"))
        .isInstanceOf(CliException.class)
        .hasMessageStartingWith("cannot write " + portFile);
    assertThat(folder).doesNotExist();
  }

  @Test
  void aPortFileInAFolderThatExists_isWrittenWhole() throws Exception {
    Path portFile = tmp.resolve("steward.port");
    Files.writeString(portFile, "stale\n");
    GrantFiles.writeLine(portFile, "8080");
    assertThat(portFile).hasContent("8080\n");
  }
}
