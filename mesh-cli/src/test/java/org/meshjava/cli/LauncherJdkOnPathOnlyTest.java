package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A new user's machine with one JDK, a 25, reached only as the {@code java} on {@code PATH} through
 * a chain of links (as Debian's alternatives make it), no {@code JAVA_HOME} and nothing under
 * {@code /usr/lib/jvm}: the launcher finds that JDK and starts the command with it, saying nothing.
 */
class LauncherJdkOnPathOnlyTest {
  @TempDir Path root;

  @Test
  void theOnlyJdk25_isTheJavaOnPath_foundThroughItsLinks() throws Exception {
    LauncherCopy.copyWithoutSystemJdks(root);
    Path jdk = LauncherCopy.standInJdk(root);
    Path bin = LauncherCopy.binOf(root, "bash", "dirname", "sed", "head", "readlink", "mktemp");
    Path alternatives = Files.createDirectories(root.resolve("alternatives"));
    Files.createSymbolicLink(alternatives.resolve("java"), jdk.resolve("bin/java"));
    Files.createSymbolicLink(bin.resolve("java"), alternatives.resolve("java"));
    Map<String, String> inherited = new HashMap<>(System.getenv());
    inherited.remove("JAVA_HOME");

    LauncherCopy.Ran ran =
        LauncherCopy.run(
            root,
            inherited,
            Map.of("PATH", bin.toString(), "HOME", root.toString(), "MESH_NO_BUILD", "1"),
            "key",
            "show");

    assertThat(ran.code()).as(ran.out()).isZero();
    assertThat(ran.out()).isEmpty();
    assertThat(Files.readAllLines(root.resolve("java-args")))
        .endsWith("org.meshjava.cli/org.meshjava.cli.Mesh", "key", "show");
  }
}
