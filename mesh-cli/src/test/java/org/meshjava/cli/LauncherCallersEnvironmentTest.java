package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The launcher a test runs has the launcher's own settings ({@code MESH_JAVA_OPTS}, {@code
 * MESH_NO_BUILD}) only where the test gives them: a caller who exported them in the shell that runs
 * the tests ({@code export MESH_JAVA_OPTS=-Xmx8g}, then {@code ./mesh test}) changes no test's
 * outcome. The exported environment is stated by the test, as the shell would hand it over.
 */
class LauncherCallersEnvironmentTest {
  @TempDir Path root;

  /**
   * Regression: an exported MESH_JAVA_OPTS reached the JVM of every launcher a test ran, so a test
   * pinning the launcher's java arguments failed on the caller's settings.
   */
  @Test
  void anExportedMeshJavaOpts_doesNotReachTheLauncherATestRuns() throws Exception {
    Map<String, String> exported = new HashMap<>(System.getenv());
    exported.put("MESH_JAVA_OPTS", "-Dmesh.exported=1");
    List<String> args = LauncherCopy.javaArguments(root, exported, Map.of(), "key", "show");
    assertThat(args)
        .doesNotContain("-Dmesh.exported=1")
        .contains("org.meshjava.cli/org.meshjava.cli.Mesh");
  }

  @Test
  void anExportedMeshNoBuild_isNotInTheLaunchersEnvironment_unlessTheTestGivesIt() {
    Map<String, String> exported = Map.of("MESH_NO_BUILD", "1", "MESH_JAVA_OPTS", "-Xmx1m");
    assertThat(LauncherCopy.environment(exported, Map.of()))
        .doesNotContainKeys("MESH_NO_BUILD", "MESH_JAVA_OPTS");
    assertThat(LauncherCopy.environment(exported, Map.of("MESH_NO_BUILD", "")))
        .containsEntry("MESH_NO_BUILD", "");
  }
}
