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
  void run_aSubjectCommandNotFound_isReportedOnceWithItsStderr_notAsEveryCaseSkipped() {
    MeshCommandTest.Run r =
        MeshCommandTest.mesh(
            "conformance",
            "run",
            "--subject",
            "no-such-mesh-subject-x9",
            "--pack",
            pack().toString());
    assertThat(r.code()).as(r.err()).isEqualTo(1);
    assertThat(r.out()).doesNotContain("SKIP").doesNotContain("total:");
    assertThat(r.err())
        .startsWith(
            "mesh conformance run: --subject no-such-mesh-subject-x9: the subject exited with"
                + " status 127 before answering its first request")
        // The shell's own words, once: what the operator needs to fix the command.
        .containsOnlyOnce("sh: 1: no-such-mesh-subject-x9: not found");
  }

  @Test
  void run_aSubjectThatDiesAtOnce_showsTheEndOfItsStderr() {
    MeshCommandTest.Run r =
        MeshCommandTest.mesh(
            "conformance",
            "run",
            "--subject",
            "echo starting >&2; echo 'Exception: no model' >&2; exit 3",
            "--pack",
            pack().toString());
    assertThat(r.code()).isEqualTo(1);
    assertThat(r.out()).isEmpty();
    assertThat(r.err())
        .contains("exited with status 3 before answering its first request")
        .contains("  its stderr:")
        .contains("    starting")
        .contains("    Exception: no model");
  }

  @Test
  void run_aSubjectThatDiesPartWay_isSaidOnceWithItsStderr_andItsCasesSkipped() {
    // Answers the hello, then dies on the first case as a crashing implementation would.
    MeshCommandTest.Run r =
        MeshCommandTest.mesh(
            "conformance",
            "run",
            "--subject",
            "read a; echo '{\"id\":\"hello\",\"result\":\"unsupported\"}';"
                + " read b; echo 'panic: index out of range' >&2; exit 2",
            "--pack",
            pack().toString());
    assertThat(r.code()).as(r.err()).isEqualTo(2);
    assertThat(r.out()).containsPattern("total: 0 passed, 0 failed, [0-9]+ skipped");
    assertThat(r.err())
        .containsOnlyOnce("stopped answering at case ")
        .contains(": it exited with status 2; that case and every later one are skipped")
        .contains("    panic: index out of range");
  }

  @Test
  void run_withATimeoutOutOfRange_isRefusedByTheFlag() {
    for (String t : new String[] {"0", "-1", "9999999999999999"}) {
      MeshCommandTest.Run r =
          MeshCommandTest.mesh(
              "conformance",
              "run",
              "--subject",
              "exit 0",
              "--pack",
              pack().toString(),
              "--timeout",
              t);
      assertThat(r.code()).as(t).isEqualTo(1);
      assertThat(r.err()).as(t).contains("--timeout must be 1 to 86400 seconds, not " + t);
    }
  }

  @Test
  void run_withAPackThatIsNotOne_namesTheFile() throws Exception {
    Path dir = Files.createTempDirectory("pack");
    MeshCommandTest.Run empty =
        MeshCommandTest.mesh("conformance", "run", "--subject", "exit 0", "--pack", dir.toString());
    assertThat(empty.code()).isEqualTo(1);
    assertThat(empty.err()).contains(dir + " holds no pack group");
    Files.writeString(dir.resolve("g.json"), "{");
    MeshCommandTest.Run broken =
        MeshCommandTest.mesh("conformance", "run", "--subject", "exit 0", "--pack", dir.toString());
    assertThat(broken.code()).isEqualTo(1);
    assertThat(broken.err())
        .contains(dir.resolve("g.json") + " is not JSON")
        .doesNotContain("REDACTED");
  }

  @Test
  void run_withoutAPack_failsWithOneLine_sayingToPassPack() {
    MeshCommandTest.Run r =
        MeshCommandTest.mesh("conformance", "run", "--subject", "exit 0", "--pack", "no/such/dir");
    assertThat(r.code()).isEqualTo(1);
    assertThat(r.err().strip().lines()).hasSize(1);
    assertThat(r.err()).contains("no conformance pack at").contains("pass --pack DIR");
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
