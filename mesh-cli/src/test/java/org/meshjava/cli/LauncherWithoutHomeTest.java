package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The launcher started without HOME (a service manager's unit without a user, {@code env -i}) still
 * finds its JDK and runs the command: HOME only adds the SDKMAN and IDE JDK folders.
 */
class LauncherWithoutHomeTest {
  @TempDir Path root;

  /** Regression: "mesh: line 45: HOME: unbound variable", exit 1, before any command ran. */
  @Test
  void withoutHome_theCommandRuns() throws Exception {
    Map<String, String> inherited = new HashMap<>(System.getenv());
    inherited.remove("HOME");
    LauncherCopy.Ran ran =
        LauncherCopy.run(
            root,
            inherited,
            Map.of("JAVA_HOME", LauncherCopy.standInJdk(root).toString(), "MESH_NO_BUILD", "1"),
            "key",
            "show");
    assertThat(ran.out()).doesNotContain("unbound variable");
    assertThat(ran.code()).as(ran.out()).isZero();
    assertThat(Files.readAllLines(root.resolve("java-args"))).endsWith("key", "show");
  }
}
