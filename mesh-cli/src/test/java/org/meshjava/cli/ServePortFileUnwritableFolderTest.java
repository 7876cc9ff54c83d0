package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Regression: {@code mesh serve --port-file} in a folder that exists but takes no file (one the
 * file system refuses, which root meets too: {@code /sys}, a read-only mount) started the steward,
 * said it was listening, then failed writing the file and stopped. It is refused before anything
 * starts, naming the folder and why.
 */
class ServePortFileUnwritableFolderTest {
  @TempDir Path tmp;

  /**
   * A folder in which this user cannot create a file: {@code /sys} (refused to root as well), else
   * a folder of this test's without write permission (refused to any other user).
   */
  private Optional<Path> unwritableFolder() throws IOException {
    Path readOnly = Files.createDirectory(tmp.resolve("read-only"));
    Files.setPosixFilePermissions(readOnly, PosixFilePermissions.fromString("r-xr-xr-x"));
    for (Path folder : List.of(Path.of("/sys"), readOnly)) {
      if (!Files.isDirectory(folder)) {
        continue;
      }
      Path probe = folder.resolve("mesh-cli-test-probe");
      try {
        Files.createFile(probe);
        Files.delete(probe);
      } catch (IOException refused) {
        return Optional.of(folder);
      }
    }
    return Optional.empty();
  }

  @Test
  void aPortFileInAFolderThatTakesNoFile_isRefusedBeforeListening() throws Exception {
    Optional<Path> folder = unwritableFolder();
    assumeTrue(folder.isPresent(), "no folder here refuses this user a file");
    Path portFile = folder.get().resolve("steward.port");

    MeshCommandTest.Run r = ServePortFileFolderTest.serve(portFile);

    assertThat(r.out()).doesNotContain("listening on");
    assertThat(r.code()).as(r.err()).isEqualTo(1);
    assertThat(r.err())
        .contains("mesh serve: --port-file " + portFile + ": cannot write in " + folder.get())
        .contains("name a file in a folder this user can write");
    assertThat(portFile).doesNotExist();
  }
}
