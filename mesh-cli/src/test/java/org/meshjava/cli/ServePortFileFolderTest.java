package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code mesh serve --port-file} whose file cannot be written where it is named is refused before
 * anything starts, not after the server said it was listening: a folder that does not exist is not
 * made (a mistyped path would be created where no script waits for it), and a folder that is a file
 * or a port file that is a folder is named as such.
 */
class ServePortFileFolderTest {
  @TempDir Path tmp;

  /**
   * Runs a serve on {@code portFile} and returns what it said; a serve still running after a minute
   * (it started) is interrupted, as Ctrl-C stops it, and its output returned all the same.
   */
  static MeshCommandTest.Run serve(Path portFile) throws InterruptedException {
    AtomicReference<MeshCommandTest.Run> ran = new AtomicReference<>();
    Thread t =
        new Thread(
            () ->
                ran.set(
                    MeshCommandTest.mesh(
                        "serve",
                        "--port",
                        "0",
                        "--meter",
                        "estimator",
                        "--port-file",
                        portFile.toString())));
    t.start();
    t.join(60_000);
    if (t.isAlive()) {
      t.interrupt();
      t.join(30_000);
    }
    MeshCommandTest.Run r = ran.get();
    assertThat(r).as("mesh serve returned").isNotNull();
    return r;
  }

  @Test
  void aPortFileInAFolderThatDoesNotExist_isRefusedBeforeListening_andNoFolderIsMade()
      throws Exception {
    Path missing = tmp.resolve("typo");
    MeshCommandTest.Run r = serve(missing.resolve("deeper").resolve("steward.port"));
    assertThat(r.out()).doesNotContain("listening on");
    assertThat(r.code()).as(r.err()).isEqualTo(1);
    assertThat(r.err())
        .contains("mesh serve: --port-file")
        .contains("no folder " + missing.resolve("deeper"));
    assertThat(missing).doesNotExist();
  }

  @Test
  void aPortFileUnderAFile_isRefusedBeforeListening() throws Exception {
    Path file = Files.writeString(tmp.resolve("afile"), "x");
    MeshCommandTest.Run r = serve(file.resolve("steward.port"));
    assertThat(r.out()).doesNotContain("listening on");
    assertThat(r.code()).as(r.err()).isEqualTo(1);
    assertThat(r.err()).contains(file + " is a file, not a folder");
    assertThat(file).hasContent("x");
  }

  @Test
  void aPortFileThatIsAFolder_isRefusedBeforeListening() throws Exception {
    Path folder = Files.createDirectory(tmp.resolve("steward.port"));
    MeshCommandTest.Run r = serve(folder);
    assertThat(r.out()).doesNotContain("listening on");
    assertThat(r.code()).as(r.err()).isEqualTo(1);
    assertThat(r.err()).contains("--port-file " + folder + " is a folder");
  }
}
