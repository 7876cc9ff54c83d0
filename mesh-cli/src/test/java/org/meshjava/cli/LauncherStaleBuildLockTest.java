package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The launcher's build lock where {@code flock} is missing (macOS): a folder made by {@code mkdir},
 * holding its owner's process id. The launcher is copied with its {@code flock} check pointed at a
 * command that does not exist, so the folder lock runs here on Linux too.
 */
class LauncherStaleBuildLockTest {
  @TempDir Path root;

  /**
   * Regression: two launchers waiting on a lock whose owner was killed both found it dead, each
   * removed it and claimed it anew, the second removing the lock the first had just claimed, and
   * both built at once. The dead owner's lock is now renamed away before it is removed, which one
   * waiter alone can do; the other waits for the build.
   */
  @Test
  void twoWaitersOnALockWhoseOwnerDied_buildOnce() throws Exception {
    Path log = launcherNeedingABuild("1");
    long dead = deadPid();
    Path lock = Files.createDirectories(root.resolve("mesh-cli/target/.mesh-build.lock.d"));
    Files.writeString(lock.resolve("pid"), dead + "\n", StandardCharsets.UTF_8);
    String realCat =
        Stream.of(System.getenv("PATH").split(":"))
            .map(d -> Path.of(d, "cat"))
            .filter(Files::isExecutable)
            .findFirst()
            .orElseThrow()
            .toString();
    // The stand-in cat holds the first two reads of the owner's id until both are made, and the
    // second until the first waiter has claimed the lock anew: both find the owner dead, and the
    // second acts on that after the first has taken over, the moment the takeover raced in.
    Path readers = root.resolve("readers");
    Path bin = Files.createDirectories(root.resolve("slow-bin"));
    executable(
        bin.resolve("cat"),
        "case \"${1:-}\" in */.mesh-build.lock.d/pid)",
        "  mkdir -p '" + readers + "'",
        "  if [ \"$(ls '" + readers + "' | wc -l)\" -lt 2 ]; then",
        "    content=\"$('" + realCat + "' \"$@\")\" || exit 1",
        "    touch '" + readers + "'/$$",
        "    n=\"$(ls '" + readers + "' | wc -l)\"",
        "    for i in $(seq 200); do",
        "      [ \"$(ls '" + readers + "' | wc -l)\" -ge 2 ] && break; sleep 0.02",
        "    done",
        "    if [ \"$n\" -ge 2 ]; then",
        "      for i in $(seq 200); do",
        "        now=\"$('" + realCat + "' \"$1\" 2>/dev/null)\" || now=''",
        "        [ -z \"$now\" ] || [ \"$now\" = \"$content\" ] || break; sleep 0.02",
        "      done",
        "    fi",
        "    printf '%s\\n' \"$content\"",
        "    exit 0",
        "  fi ;;",
        "esac",
        "exec '" + realCat + "' \"$@\"");
    List<Process> waiters = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      waiters.add(
          LauncherCopy.start(
              "bash",
              root,
              root.resolve("out-" + i + ".txt"),
              Map.of(
                  "JAVA_HOME",
                  System.getProperty("java.home"),
                  "PATH",
                  bin + ":" + System.getenv("PATH")),
              "--version"));
    }
    for (Process p : waiters) {
      assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("the launcher ends").isTrue();
    }
    // The stand-in build makes no real jar, so each command then fails to start; only the builds
    // are under test.
    assertThat(Files.readAllLines(log)).containsExactly("start", "end");
  }

  /**
   * Regression: a waiter killed while it took a dead owner's lock over left that lock renamed
   * ({@code .mesh-build.lock.d.<its pid>}), and nothing ever removed it. The next build removes one
   * whose waiter is gone and keeps one whose waiter still runs.
   */
  @Test
  void aLockLeftRenamedByAKilledWaiter_isRemovedByTheNextBuild() throws Exception {
    Path log = launcherNeedingABuild("0");
    Path target = root.resolve("mesh-cli/target");
    Path left = Files.createDirectories(target.resolve(".mesh-build.lock.d." + deadPid()));
    Files.writeString(left.resolve("pid"), "1\n", StandardCharsets.UTF_8);
    long here = ProcessHandle.current().pid();
    Path inUse = Files.createDirectories(target.resolve(".mesh-build.lock.d." + here));

    Process launcher =
        LauncherCopy.start(
            "bash",
            root,
            root.resolve("out.txt"),
            Map.of("JAVA_HOME", System.getProperty("java.home")),
            "--version");

    assertThat(launcher.waitFor(60, TimeUnit.SECONDS)).as("the launcher ends").isTrue();
    assertThat(Files.readAllLines(log)).containsExactly("start", "end");
    assertThat(left).doesNotExist();
    assertThat(inUse).isDirectory();
  }

  /**
   * The launcher copied into {@code root} with the folder lock, a source newer than any build, and
   * a stand-in Maven wrapper whose build takes {@code seconds} and logs its start and end (and an
   * overlap with another) into the returned file.
   */
  private Path launcherNeedingABuild(String seconds) throws java.io.IOException {
    String launcher =
        Files.readString(Path.of("..", "mesh").toAbsolutePath().normalize())
            .replace("command -v flock", "command -v flock-missing-here");
    assertThat(launcher).contains("flock-missing-here");
    Files.writeString(root.resolve("mesh"), launcher, StandardCharsets.UTF_8);
    Path log = root.resolve("builds.log");
    executable(
        root.resolve("mvnw"),
        "log='" + log + "'",
        "echo start >> \"$log\"",
        "mkdir \"$log.building\" 2>/dev/null || echo overlap >> \"$log\"",
        "sleep " + seconds,
        "mkdir -p mesh-cli/target/lib && touch mesh-cli/target/mesh-cli.jar",
        "rmdir \"$log.building\" 2>/dev/null",
        "echo end >> \"$log\"");
    Files.createDirectories(root.resolve("mesh-cli/src/main/java"));
    Files.writeString(root.resolve("mesh-cli/src/main/java/Source.java"), "class Source {}\n");
    return log;
  }

  /** The id of a process that has ended. */
  private static long deadPid() throws Exception {
    Process dead = new ProcessBuilder("true").start();
    assertThat(dead.waitFor(10, TimeUnit.SECONDS)).isTrue();
    return dead.pid();
  }

  private static void executable(Path file, String... lines) throws java.io.IOException {
    Files.writeString(
        file, "#!/usr/bin/env bash\n" + String.join("\n", lines) + "\n", StandardCharsets.UTF_8);
    assertThat(file.toFile().setExecutable(true)).isTrue();
  }
}
