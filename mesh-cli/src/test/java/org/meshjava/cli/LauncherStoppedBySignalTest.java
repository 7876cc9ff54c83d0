package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A stop by signal sent to the {@code ./mesh} launcher (a service manager's SIGTERM goes to the
 * process it started, not to its group) while the command it started runs. The launcher is run
 * against a stand-in JDK whose {@code java} notes its process id and the signal that stops it.
 */
class LauncherStoppedBySignalTest {
  @TempDir Path root;

  /**
   * Regression: the launcher ran {@code java} in the foreground with its temporary class archive
   * removed by an EXIT trap only, so SIGTERM ended bash at once: the {@code .mesh.jsa.XXXXXX} file
   * stayed in {@code mesh-cli/target} and {@code java} ran on, orphaned. The signal is now passed
   * on to {@code java}, waited for, and the launcher ends with its status, leaving nothing.
   */
  @Test
  void sigtermToTheLauncher_reachesJava_removesTheTemporaryArchive_andEndsWith143()
      throws Exception {
    Path target = Files.createDirectories(root.resolve("mesh-cli/target"));
    Path jdk = Files.createDirectories(root.resolve("jdk/bin"));
    Files.writeString(root.resolve("jdk/release"), "JAVA_VERSION=\"25\"\n", StandardCharsets.UTF_8);
    Path pidFile = root.resolve("java-pid");
    Path stoppedBy = root.resolve("java-stopped-by");
    for (String tool : List.of("java", "javac")) {
      Path p = jdk.resolve(tool);
      Files.writeString(
          p,
          String.join(
              "\n",
              "#!/usr/bin/env bash",
              "trap 'echo TERM > \"" + stoppedBy + "\"; kill $! 2>/dev/null; exit 143' TERM",
              "sleep 30 &",
              "echo $$ > \"" + pidFile + ".new\" && mv \"" + pidFile + ".new\" \"" + pidFile + "\"",
              "wait",
              ""),
          StandardCharsets.UTF_8);
      assertThat(p.toFile().setExecutable(true)).isTrue();
    }
    Files.copy(Path.of("..", "mesh").toAbsolutePath().normalize(), root.resolve("mesh"));
    Process launcher =
        LauncherCopy.start(
            "bash",
            root,
            root.resolve("out.txt"),
            Map.of("JAVA_HOME", root.resolve("jdk").toString(), "MESH_NO_BUILD", "1"),
            "key",
            "show");
    try {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (!Files.exists(pidFile)) {
        assertThat(launcher.isAlive()).as(Files.readString(root.resolve("out.txt"))).isTrue();
        assertThat(System.nanoTime()).as("java starts").isLessThan(deadline);
        Thread.sleep(5);
      }
      assertThat(archives(target)).as("the run writes a temporary archive").hasSize(1);
      launcher.destroy(); // SIGTERM, to the launcher alone
      assertThat(launcher.waitFor(20, TimeUnit.SECONDS)).as("the launcher ends").isTrue();
    } finally {
      launcher.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
    long java = Long.parseLong(Files.readString(pidFile).strip());
    try {
      assertThat(archives(target)).as("temporary archives left").isEmpty();
      assertThat(ProcessHandle.of(java).filter(ProcessHandle::isAlive))
          .as("java left running")
          .isEmpty();
    } finally {
      ProcessHandle.of(java).ifPresent(ProcessHandle::destroyForcibly);
    }
    assertThat(Files.readString(stoppedBy).strip()).isEqualTo("TERM");
    assertThat(launcher.exitValue()).isEqualTo(143);
  }

  private static List<Path> archives(Path target) throws java.io.IOException {
    try (Stream<Path> s = Files.list(target)) {
      return s.filter(p -> p.getFileName().toString().startsWith(".mesh.jsa.")).toList();
    }
  }
}
