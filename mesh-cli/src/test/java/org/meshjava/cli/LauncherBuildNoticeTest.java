package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Regression: on a fresh clone the first {@code ./mesh demo} printed nothing for the minutes its
 * quiet Maven build took (7.5 min here on two loaded cores), so a new user saw a command that
 * looked hung. The launcher now says on stderr that it builds, and says nothing when it does not.
 * The build is a stand-in {@code mvnw} that makes an empty jar, so no real Maven build runs here.
 */
class LauncherBuildNoticeTest {
  @TempDir Path root;

  @Test
  void aBuild_isSaidOnStderr_andAFreshTreeSaysNothingOfIt() throws Exception {
    LauncherCopy.unbuiltTreeWithStandInBuild(root);
    // An empty MESH_NO_BUILD builds, whatever the shell running the tests exported.
    Map<String, String> env =
        Map.of("JAVA_HOME", System.getProperty("java.home"), "MESH_NO_BUILD", "");

    // The stand-in jar is empty, so the JVM then fails to start; only the launcher's words count.
    LauncherCopy.Ran first = LauncherCopy.run(root, env, "--version");
    assertThat(first.out()).contains("mesh: building mesh-cli");

    LauncherCopy.Ran second = LauncherCopy.run(root, env, "--version");
    assertThat(second.out()).doesNotContain("building");
  }
}
