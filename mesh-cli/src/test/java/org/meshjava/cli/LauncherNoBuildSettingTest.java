package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code MESH_NO_BUILD} takes 1 (never build), or 0, empty or unset (build when a source changed);
 * any other value is refused in one line before anything runs. The build is a stand-in {@code mvnw}
 * that makes an empty jar, so no real Maven build runs here.
 */
class LauncherNoBuildSettingTest {
  @TempDir Path root;

  private LauncherCopy.Ran withNoBuild(String value) throws Exception {
    return LauncherCopy.run(
        root,
        Map.of("JAVA_HOME", System.getProperty("java.home"), "MESH_NO_BUILD", value),
        "--version");
  }

  /**
   * Regression: every non-empty value meant "never build", so {@code MESH_NO_BUILD=0}, written to
   * turn the setting off, ran the last build (or none) after an edit without a word.
   */
  @Test
  void zero_buildsWhenStale_asUnsetDoes() throws Exception {
    LauncherCopy.unbuiltTreeWithStandInBuild(root);
    // The stand-in jar is empty, so the JVM then fails to start; only the launcher's words count.
    assertThat(withNoBuild("0").out()).contains("mesh: building mesh-cli");
  }

  @Test
  void anotherValue_isRefusedInOneLine_exitTwo_beforeAnyBuild() throws Exception {
    LauncherCopy.unbuiltTreeWithStandInBuild(root);
    LauncherCopy.Ran r = withNoBuild("yes");
    assertThat(r.code()).as(r.out()).isEqualTo(2);
    assertThat(r.out().strip().lines()).as(r.out()).hasSize(1);
    assertThat(r.out())
        .startsWith("mesh: MESH_NO_BUILD is 'yes': set it to 1")
        .doesNotContain("mesh: building");
    assertThat(root.resolve("mesh-cli/target/mesh-cli.jar")).doesNotExist();
  }

  @Test
  void anOverlongValueWithLineBreaks_isShortenedInTheRefusal_stillOneLine() throws Exception {
    LauncherCopy.unbuiltTreeWithStandInBuild(root);
    LauncherCopy.Ran r = withNoBuild("x\n".repeat(5000));
    assertThat(r.code()).as(r.out()).isEqualTo(2);
    assertThat(r.out().strip().lines()).as(r.out()).hasSize(1);
    assertThat(r.out()).contains("x?x?").contains("(10000 characters)").hasSizeLessThan(300);
  }
}
