package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code sh ./mesh}, as {@code sh ./mvnw} is often typed, runs the launcher as {@code ./mesh} does
 * where sh is another shell than bash (dash, on Debian and Ubuntu): the launcher is bash's, so it
 * hands itself to bash before its first line that is bash's own.
 */
class LauncherRunByShTest {
  @TempDir Path root;

  /**
   * Regression: under dash the launcher stopped at its first line, "set: Illegal option -o
   * pipefail", exit 2, and ran nothing.
   */
  @Test
  void runBySh_startsTheCommandAsBashWould() throws Exception {
    Map<String, String> env =
        Map.of("JAVA_HOME", LauncherCopy.standInJdk(root).toString(), "MESH_NO_BUILD", "1");
    LauncherCopy.Ran ran =
        LauncherCopy.runBy("sh", root, System.getenv(), env, "key", "show", "--key", "k");
    assertThat(ran.out()).doesNotContain("pipefail").doesNotContain("Illegal option");
    assertThat(ran.code()).as(ran.out()).isZero();
    assertThat(Files.readAllLines(root.resolve("java-args")))
        .endsWith("org.meshjava.cli/org.meshjava.cli.Mesh", "key", "show", "--key", "k");
  }

  @Test
  void runBySh_answersTheLaunchersOwnHelp() throws Exception {
    Map<String, String> env = Map.of("JAVA_HOME", LauncherCopy.standInJdk(root).toString());
    LauncherCopy.Ran ran = LauncherCopy.runBy("sh", root, System.getenv(), env, "test", "--help");
    assertThat(ran.code()).as(ran.out()).isZero();
    assertThat(ran.out()).startsWith("Usage: mesh test");
  }
}
