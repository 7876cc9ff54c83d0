package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.journal.testing.ChildJava;

/**
 * Regression: Ctrl-C (SIGINT) during {@code mesh demo} ran no cleanup, so its temporary folder, and
 * the journal once it was opened, stayed in the temporary directory, and the demo ended without a
 * word. The stop now removes the folder and says so in one line.
 */
class DemoStoppedBySignalTest {
  @TempDir static Path tmp;

  /**
   * Both tests' demos, started together: most of each one's time is its JVM starting and loading
   * the command's classes, which the two then spend side by side rather than one after the other.
   */
  private static Process stopped;

  private static Process withoutItsFolder;

  @BeforeAll
  static void startBothDemos() throws java.io.IOException {
    stopped = demo(Files.createDirectories(tmp.resolve("java-tmp")), tmp.resolve("stopped.out"));
    withoutItsFolder = demo(tmp.resolve("missing"), tmp.resolve("without-its-folder.out"));
  }

  @AfterAll
  static void endBothDemos() throws InterruptedException {
    for (Process p : new Process[] {stopped, withoutItsFolder}) {
      if (p != null) {
        p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    }
  }

  @Test
  void aStopSignalWhileTheModelLoads_removesTheTemporaryFolder_inOneLine() throws Exception {
    Path out = tmp.resolve("stopped.out");
    Path temporary = tmp.resolve("java-tmp");
    Process child = stopped;
    try {
      long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      while (demoFolders(temporary).isEmpty()) {
        assertThat(child.isAlive()).as("the demo runs").isTrue();
        assertThat(System.nanoTime()).as("the demo makes its folder").isLessThan(deadline);
        Thread.sleep(5);
      }
      // SIGTERM, not SIGINT: a JVM started where SIGINT is ignored (a suite run under nohup or as
      // a shell script's background job) keeps ignoring it, and the demo then ran to its end.
      Process kill = new ProcessBuilder("kill", "-TERM", Long.toString(child.pid())).start();
      assertThat(kill.waitFor()).isZero();
      assertThat(child.waitFor(60, TimeUnit.SECONDS)).as("the demo stops").isTrue();
    } finally {
      child.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
    String said = Files.readString(out);
    assertThat(child.exitValue()).as(said).isEqualTo(143);
    assertThat(demoFolders(temporary)).as(said).isEmpty();
    assertThat(said.lines().filter(l -> l.startsWith("mesh demo: stopped before it ended")))
        .as(said)
        .singleElement()
        .asString()
        .endsWith(" was removed");
    assertThat(said).as(said).doesNotContain("Exception");
  }

  /**
   * Regression: where the temporary folder could not be made (a missing or full temporary
   * directory), the stop hook stayed in place and added "mesh demo: stopped before it ended" under
   * the error as the JVM exited, though no signal stopped it.
   */
  @Test
  void aTemporaryFolderThatCannotBeMade_isNotCalledAStop() throws Exception {
    Path out = tmp.resolve("without-its-folder.out");
    Process child = withoutItsFolder;
    try {
      assertThat(child.waitFor(60, TimeUnit.SECONDS)).as("the demo ends").isTrue();
    } finally {
      child.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
    String said = Files.readString(out);
    assertThat(child.exitValue()).as(said).isNotZero();
    assertThat(said).as(said).doesNotContain("stopped before it ended");
  }

  /** {@code mesh demo} in a child JVM whose temporary directory is {@code temporary}. */
  private static Process demo(Path temporary, Path out) throws java.io.IOException {
    return new ProcessBuilder(
            ChildJava.command(
                List.of(
                    "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Djava.io.tmpdir=" + temporary),
                Mesh.class,
                "demo"))
        .redirectErrorStream(true)
        .redirectOutput(out.toFile())
        .start();
  }

  private static List<Path> demoFolders(Path temporary) throws java.io.IOException {
    try (Stream<Path> s = Files.list(temporary)) {
      return s.filter(p -> p.getFileName().toString().startsWith("mesh-demo")).toList();
    }
  }
}
