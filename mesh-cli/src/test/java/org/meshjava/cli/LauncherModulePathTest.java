package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The repository's {@code ./mesh} launcher runs the command on the module path. This test needs the
 * packaged command ({@code target/mesh-cli.jar} and {@code target/lib}), so the build runs it after
 * {@code package} (the {@code launcher} execution in mesh-cli's pom, which picks it by its tag),
 * not with the unit tests.
 */
@Tag("launcher")
class LauncherModulePathTest {
  @Test
  void launcher_runsTheCommandAsTheNamedModule_notFromTheClassPath()
      throws IOException, InterruptedException {
    Path launcher = Path.of("..", "mesh").toAbsolutePath().normalize();
    assertThat(launcher).as("the launcher at the repository root").isRegularFile();
    assertThat(Path.of("target", "mesh-cli.jar")).as("the packaged command").isRegularFile();
    ProcessBuilder pb =
        new ProcessBuilder("bash", launcher.toString(), "--version").redirectErrorStream(true);
    // The JDK running this test is the one the launcher must use; MESH_NO_BUILD keeps the
    // launcher from starting a nested Maven build of the jar this build has just packaged.
    Map<String, String> env =
        LauncherCopy.environment(
            System.getenv(),
            Map.of("JAVA_HOME", System.getProperty("java.home"), "MESH_NO_BUILD", "1"));
    pb.environment().clear();
    pb.environment().putAll(env);
    Process p = pb.start();
    byte[] out = p.getInputStream().readAllBytes();
    assertThat(p.waitFor(120, TimeUnit.SECONDS)).as("the launcher ends").isTrue();
    String text = new String(out, StandardCharsets.UTF_8);
    assertThat(p.exitValue()).as(text).isZero();
    assertThat(text).contains("mesh-java 0.1.0").contains("module path: org.meshjava.cli");
  }

  /**
   * What the launcher reads to take this build as its own ({@code LauncherMavenBuildTest}): when
   * the build started, and our modules' jars from this tree.
   */
  @Test
  void package_writesWhenItStarted_andWhereOurModulesCameFrom() throws IOException {
    Path target = Path.of("target");
    Instant started = Instant.parse(Files.readString(target.resolve("mesh-build-started")).strip());
    assertThat(started).isBefore(Instant.now());
    String classpath = Files.readString(target.resolve("mesh-build-classpath")).strip();
    assertThat(classpath.split(":"))
        .anySatisfy(e -> assertThat(e).contains("mesh-steward"))
        .allSatisfy(e -> assertThat(e).contains("/target/"));
  }
}
