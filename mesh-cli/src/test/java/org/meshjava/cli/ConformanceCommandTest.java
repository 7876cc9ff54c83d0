package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * {@code mesh conformance run --subject CMD} against {@code mesh conformance subject} started as a
 * separate process: the CLI path another implementation's author would use.
 */
class ConformanceCommandTest {

  @Test
  void run_againstMeshJavasOwnSubjectCommand_passesTheWholePackAndExitsZero() {
    MeshCommandTest.Run r =
        MeshCommandTest.mesh(
            "conformance", "run", "--subject", subjectCommand(), "--pack", pack().toString());
    assertThat(r.code()).as(r.out() + r.err()).isZero();
    assertThat(r.out())
        .contains("subject: mesh-java")
        .containsPattern("total: [0-9]+ passed, 0 failed, 0 skipped");
  }

  @Test
  void run_againstASubjectThatAnswersNothing_skipsEverything_andExitsTwo() {
    MeshCommandTest.Run r =
        MeshCommandTest.mesh(
            "conformance", "run", "--subject", "exit 0", "--pack", pack().toString());
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.out()).containsPattern("total: 0 passed, 0 failed, [0-9]+ skipped");
  }

  @Test
  void run_withoutAPack_failsWithOneLine() {
    MeshCommandTest.Run r =
        MeshCommandTest.mesh("conformance", "run", "--subject", "exit 0", "--pack", "no/such/dir");
    assertThat(r.code()).isEqualTo(1);
    assertThat(r.err()).contains("no conformance pack at");
  }

  /**
   * {@code java -cp <this test run's classes> org.meshjava.cli.Mesh conformance subject}, quoted
   * for sh.
   */
  private static String subjectCommand() {
    Set<String> path = new LinkedHashSet<>();
    for (String property : List.of("jdk.module.path", "java.class.path")) {
      for (String entry : System.getProperty(property, "").split(File.pathSeparator)) {
        if (!entry.isBlank()) {
          path.add(entry);
        }
      }
    }
    try {
      path.add(
          Path.of(Mesh.class.getProtectionDomain().getCodeSource().getLocation().toURI())
              .toString());
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
    String java = ProcessHandle.current().info().command().orElse("java");
    return quote(java)
        + " -cp "
        + quote(String.join(File.pathSeparator, path))
        + " org.meshjava.cli.Mesh conformance subject";
  }

  private static String quote(String s) {
    return "'" + s.replace("'", "'\\''") + "'";
  }

  private static Path pack() {
    Path here = Path.of("").toAbsolutePath();
    for (Path p = here; p != null; p = p.getParent()) {
      Path candidate = p.resolve("conformance/v1/cases");
      if (Files.isDirectory(candidate)) {
        return candidate;
      }
    }
    throw new IllegalStateException("conformance/v1/cases not found above " + here);
  }
}
