package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The launcher's waits where there is no {@code sleep} on {@code PATH} (a trimmed container, a
 * {@code PATH} set by hand): each waits in bash's own timed read instead, as long as its nap would
 * have slept, so it neither lasts for ever nor spins a core. {@code PATH} here is a folder of the
 * few tools the launcher uses, without {@code sleep} and without {@code mkfifo} (the read waits on
 * a pipe of bash's own on Linux).
 */
class LauncherWithoutSleepTest {
  private static final List<String> TOOLS =
      List.of(
          "bash",
          "dirname",
          "sed",
          "head",
          "readlink",
          "mktemp",
          "find",
          "uname",
          "rm",
          "tr",
          "mkdir",
          "touch",
          "mv");

  @TempDir Path root;

  /**
   * Regression: without {@code sleep}, a {@code java} that never answered when the launcher had to
   * start it to learn its version (a JDK without a release file) was waited for as long as it took,
   * {@code MESH_JAVA_TIMEOUT_S} notwithstanding: for good. It is ended after the timeout and passed
   * over, in one line, as where there is a {@code sleep}.
   */
  @Test
  void aJavaThatNeverAnswers_isPassedOverAfterTheTimeout_withNoSleepOnPath() throws Exception {
    LauncherCopy.copyWithoutSystemJdks(root);
    Path bin = bin();
    Path jdk = Files.createDirectories(root.resolve("jvm/java-unknown/bin"));
    Path hung = root.resolve("hung-jvms");
    for (String tool : List.of("java", "javac")) {
      Path p = jdk.resolve(tool);
      Files.writeString(
          p,
          "#!/usr/bin/env bash\necho $$ >> '"
              + hung
              + "'\nexec '"
              + LauncherCopy.onPath("sleep")
              + "' 300\n",
          StandardCharsets.UTF_8);
      assertThat(p.toFile().setExecutable(true)).isTrue();
    }

    LauncherCopy.Ran ran;
    try {
      ran =
          LauncherCopy.run(
              root,
              Map.of(
                  "PATH", bin.toString(),
                  "HOME", root.toString(),
                  "JAVA_HOME", "",
                  "MESH_NO_BUILD", "1",
                  "MESH_JAVA_TIMEOUT_S", "0.2"),
              "key",
              "show");
    } finally {
      endAll(hung);
    }

    assertThat(ran.code()).as(ran.out()).isEqualTo(1);
    assertThat(ran.out())
        .contains(
            "mesh: passed over the JDK at "
                + jdk.getParent()
                + ": its java did not answer within 0.2 s",
            "no JDK 25 found");
  }

  /**
   * Regression: without {@code sleep}, a launcher waiting on the claim guard of another (here this
   * test's process, alive) looked at it again at once, without a pause, spinning a core for as long
   * as the wait lasted. It now looks at most once a twentieth of a second it waits (the guard's
   * holder is read through {@code cat}, which here counts its runs), waiting between looks in a
   * timed read of a pipe it holds.
   */
  @Test
  void aWaitOnTheClaimGuard_napsBetweenLooks_withNoSleepOnPath() throws Exception {
    LauncherCopy.unbuiltTreeWithStandInBuild(root);
    String launcher =
        Files.readString(Path.of("..", "mesh").toAbsolutePath().normalize())
            .replace("command -v flock", "command -v flock-missing-here");
    Files.writeString(root.resolve("mesh"), launcher, StandardCharsets.UTF_8);
    Path bin = bin();
    Path looks = root.resolve("looks");
    Path cat = bin.resolve("cat");
    Files.writeString(
        cat,
        "#!/usr/bin/env bash\necho >> '"
            + looks
            + "'\nexec '"
            + LauncherCopy.onPath("cat")
            + "' \"$@\"\n",
        StandardCharsets.UTF_8);
    assertThat(cat.toFile().setExecutable(true)).isTrue();
    Path guard =
        Files.createDirectories(root.resolve("mesh-cli/target")).resolve(".mesh-build.claim");
    Files.writeString(guard, ProcessHandle.current().pid() + "\n", StandardCharsets.UTF_8);
    Path out = root.resolve("out.txt");

    Process waiting =
        LauncherCopy.start(
            "bash",
            root,
            out,
            Map.of(
                "PATH", bin.toString(),
                "JAVA_HOME", LauncherCopy.standInJdk(root).toString(),
                "MESH_CLAIM_GRACE_S", "0"),
            "--version");
    try {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (!Files.readString(out).contains("mesh: waiting for process")) {
        assertThat(waiting.isAlive()).as(Files.readString(out)).isTrue();
        assertThat(System.nanoTime()).as("the launcher waits on the guard").isLessThan(deadline);
        Thread.sleep(10);
      }
      long before = Files.readAllLines(looks).size();
      long from = System.nanoTime();
      Thread.sleep(200);
      long after = Files.readAllLines(looks).size();
      long waitedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - from);

      assertThat(after - before)
          .as("looks at the guard in %d ms", waitedMillis)
          .isLessThanOrEqualTo(waitedMillis / 50 + 2);
      // Where a look costs as much as a nap (a machine under heavy load), the count above cannot
      // tell a spin from naps; what the launcher waits on can: a pipe of its own, on Linux.
      Path waitsOn = Path.of("/proc", Long.toString(waiting.pid()), "fd", "7");
      if (Files.isDirectory(Path.of("/proc/self/fd"))) {
        assertThat(Files.isSymbolicLink(waitsOn))
            .as("the waiting launcher holds descriptor 7, the pipe its timed read waits on")
            .isTrue();
        assertThat(Files.readSymbolicLink(waitsOn).toString()).startsWith("pipe:");
      }
      Files.delete(guard);
      assertThat(waiting.waitFor(30, TimeUnit.SECONDS)).as("the launcher ends").isTrue();
    } finally {
      waiting.destroyForcibly();
    }
    assertThat(waiting.exitValue()).as(Files.readString(out)).isZero();
    assertThat(Files.readAllLines(root.resolve("java-args"))).contains("--version");
  }

  /** A folder of {@link #TOOLS} for {@code PATH}: no {@code sleep}, no {@code mkfifo}. */
  private Path bin() throws IOException {
    return LauncherCopy.binOf(root, TOOLS.toArray(String[]::new));
  }

  /** Ends every process whose id {@code pids} lists, one a line, where it exists. */
  private static void endAll(Path pids) throws IOException {
    if (Files.exists(pids)) {
      for (String pid : Files.readAllLines(pids)) {
        ProcessHandle.of(Long.parseLong(pid.strip())).ifPresent(ProcessHandle::destroyForcibly);
      }
    }
  }
}
