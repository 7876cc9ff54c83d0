package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A file of the build lock (flock's lock file; where flock is missing, the claim guard and the
 * lock's pid file) that is there as a FIFO: the launcher opened it, or read it through {@code cat},
 * and waited for a writer or a reader that never came. It is refused in one line naming it.
 */
class LauncherLockFileNotAFileTest {
  @TempDir Path root;

  /**
   * Regression: a FIFO where the claim guard goes held the launcher for good, in the shell's open
   * of it for writing (noclobber refuses only an existing regular file); one where the lock's pid
   * file goes did the same in {@code cat}.
   */
  @Test
  void aFifoAsTheClaimGuardOrPidFile_isRefusedInOneLine_whereFlockIsMissing() throws Exception {
    Path target = Files.createDirectories(root.resolve("mesh-cli/target"));
    for (Path fifo :
        new Path[] {
          target.resolve(".mesh-build.claim"), target.resolve(".mesh-build.lock.d/pid")
        }) {
      LauncherCopy.unbuiltTreeWithStandInBuild(root);
      String launcher =
          Files.readString(Path.of("..", "mesh").toAbsolutePath().normalize())
              .replace("command -v flock", "command -v flock-missing-here");
      Files.writeString(root.resolve("mesh"), launcher, StandardCharsets.UTF_8);
      Files.createDirectories(fifo.getParent());
      mkfifo(fifo);

      assertRefused(fifo);
      Files.delete(fifo);
    }
  }

  /** Regression: a FIFO as flock's lock file held the launcher for good in its open for writing. */
  @Test
  void aFifoAsFlocksLockFile_isRefusedInOneLine() throws Exception {
    assumeTrue(Files.isExecutable(Path.of("/usr/bin/flock")), "flock, whose lock this is");
    LauncherCopy.unbuiltTreeWithStandInBuild(root);
    Path fifo =
        Files.createDirectories(root.resolve("mesh-cli/target")).resolve(".mesh-build.lock");
    mkfifo(fifo);

    assertRefused(fifo);
  }

  /** Runs a command needing a build and checks it is refused, naming the FIFO {@code fifo}. */
  private void assertRefused(Path fifo) throws Exception {
    LauncherCopy.Ran ran =
        LauncherCopy.run(
            root, Map.of("JAVA_HOME", LauncherCopy.standInJdk(root).toString()), "--version");

    assertThat(ran.code()).as(ran.out()).isEqualTo(1);
    assertThat(ran.out().strip().lines()).as(ran.out()).hasSize(1);
    assertThat(ran.out().strip())
        .isEqualTo(
            "mesh: "
                + fifo
                + ", a file of mesh-cli's build lock, is a FIFO (named pipe), not a file: remove it"
                + " (the launcher makes it anew), or run the last build as it is with"
                + " MESH_NO_BUILD=1");
  }

  private static void mkfifo(Path at) throws Exception {
    Process p = new ProcessBuilder("mkfifo", at.toString()).inheritIO().start();
    assertThat(p.waitFor(10, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).isZero();
  }
}
