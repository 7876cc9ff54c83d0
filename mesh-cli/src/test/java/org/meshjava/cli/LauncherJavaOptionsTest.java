package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code MESH_JAVA_OPTS} reaches the JVM of every command the launcher runs, after the launcher's
 * own options so that the operator's win: the out-of-memory line names it as the way to give a
 * large model more heap ({@code MESH_JAVA_OPTS=-Xmx8g ./mesh serve …}), and before it the launcher
 * passed no option of the operator's at all. The launcher is run against a stand-in JDK whose
 * {@code java} writes down its arguments.
 */
class LauncherJavaOptionsTest {
  @TempDir Path root;

  private List<String> javaArguments(Map<String, String> env, String... args)
      throws IOException, InterruptedException {
    return LauncherCopy.javaArguments(root, env, args);
  }

  @Test
  void meshJavaOpts_reachEveryCommandsJvm_beforeTheModule() throws Exception {
    Map<String, String> env = Map.of("MESH_JAVA_OPTS", "-Xmx8g  -Dmesh.x=1");
    for (String[] command :
        new String[][] {{"serve", "--port", "0"}, {"key", "show"}, {"journal", "verify", "j"}}) {
      List<String> args = javaArguments(env, command);
      assertThat(args).as(String.join(" ", command)).contains("-Xmx8g", "-Dmesh.x=1");
      // JVM options, so before the module is named: after it they would be the command's.
      assertThat(args.indexOf("-Xmx8g")).isLessThan(args.indexOf("-m"));
      assertThat(args.getLast()).isEqualTo(command[command.length - 1]);
    }
  }

  /**
   * Regression: options on several lines (an environment file's value, {@code $'-Xmx8g\n-D…'}) lost
   * every line after the first without a word, so the heap setting given there never applied.
   */
  @Test
  void meshJavaOpts_onSeveralLines_allReachTheJvm() throws Exception {
    List<String> args =
        javaArguments(
            Map.of("MESH_JAVA_OPTS", "-Dmesh.a=1\n-Xmx8g\r\n\t-Dmesh.b=2\n"), "key", "show");
    assertThat(args).contains("-Dmesh.a=1", "-Xmx8g", "-Dmesh.b=2").noneMatch(String::isBlank);
  }

  @Test
  void theOperatorsOptions_comeAfterTheLaunchers_soTheyWin() throws Exception {
    List<String> args =
        javaArguments(Map.of("MESH_JAVA_OPTS", "-XX:TieredStopAtLevel=4"), "key", "show");
    assertThat(args.lastIndexOf("-XX:TieredStopAtLevel=4"))
        .isGreaterThan(args.indexOf("-XX:TieredStopAtLevel=1"));
  }

  @Test
  void withoutMeshJavaOpts_nothingIsAdded() throws Exception {
    List<String> args = javaArguments(Map.of(), "serve", "--port", "0");
    assertThat(args).noneMatch(a -> a.isEmpty());
    assertThat(args.get(args.indexOf("-m") - 2)).isEqualTo("-p");
  }
}
