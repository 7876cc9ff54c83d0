package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Several {@code ./mesh} commands started at once on a tree that needs building build it once. The
 * launcher is copied beside a stand-in {@code mvnw} that only notes each build and whether another
 * was running, so no real Maven build runs here.
 */
class LauncherConcurrentBuildTest {
  @TempDir Path root;

  /**
   * Regression: three commands started together after a source change each ran Maven in the same
   * tree, each rewriting the jars the others compiled against and ran from; two of the three failed
   * (javac's "invalid LOC header" reading a half-written jar, "module org.meshjava.engine not
   * found" at start). The first now builds while the others wait, and they find the build fresh.
   */
  @Test
  void launcher_startedThriceAtOnceOnAStaleTree_buildsOnce_neverTwoBuildsTogether()
      throws IOException, InterruptedException {
    Path launcher = Path.of("..", "mesh").toAbsolutePath().normalize();
    Files.copy(launcher, root.resolve("mesh"));
    Path log = root.resolve("builds.log");
    Files.writeString(
        root.resolve("mvnw"),
        String.join(
            "\n",
            "#!/usr/bin/env bash",
            "log='" + log + "'",
            "echo start >> \"$log\"",
            "mkdir \"$log.building\" 2>/dev/null || echo overlap >> \"$log\"",
            "sleep 1",
            "mkdir -p mesh-cli/target/lib && touch mesh-cli/target/mesh-cli.jar",
            "rmdir \"$log.building\" 2>/dev/null",
            "echo end >> \"$log\"",
            ""),
        StandardCharsets.UTF_8);
    assertThat(root.resolve("mvnw").toFile().setExecutable(true)).isTrue();
    Files.createDirectories(root.resolve("mesh-cli/src/main/java"));
    Files.writeString(root.resolve("mesh-cli/src/main/java/Source.java"), "class Source {}\n");
    List<Process> commands = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      commands.add(
          LauncherCopy.start(
              "bash",
              root,
              root.resolve("out-" + i + ".txt"),
              Map.of("JAVA_HOME", System.getProperty("java.home")),
              "--version"));
    }
    for (Process p : commands) {
      assertThat(p.waitFor(120, TimeUnit.SECONDS)).as("the launcher ends").isTrue();
    }
    // The stand-in build makes no real jar, so each command then fails to start; only the builds
    // are under test.
    assertThat(Files.readAllLines(log)).containsExactly("start", "end");
  }
}
