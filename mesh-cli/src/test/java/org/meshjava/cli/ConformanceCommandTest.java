package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.journal.testing.ChildJava;

/**
 * {@code mesh conformance run --subject CMD} against {@code mesh conformance subject} started as a
 * separate process: the CLI path another implementation's author would use.
 */
class ConformanceCommandTest {
  /** Each test's own folder, removed after it (a folder under /tmp would outlive the run). */
  @TempDir Path temp;

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

  /**
   * Runs the pack against a subject that first starts {@code sleep 300} in the background (its
   * output elsewhere, so that it does not hold the subject's open), then does {@code rest}; returns
   * the run and asserts that sleep did not outlive it.
   */
  private MeshCommandTest.Run runLeavingABackgroundProcess(String rest, String timeout)
      throws Exception {
    Path pid = temp.resolve("background.pid");
    MeshCommandTest.Run r =
        MeshCommandTest.mesh(
            "conformance",
            "run",
            "--subject",
            "sleep 300 >/dev/null 2>&1 & echo $! > '"
                + pid
                + "'; read a; echo '{\"id\":\"hello\",\"result\":\"unsupported\"}'; "
                + rest,
            "--pack",
            pack().toString(),
            "--timeout",
            timeout);
    ProcessHandle background =
        ProcessHandle.of(Long.parseLong(Files.readString(pid).strip())).orElse(null);
    Files.delete(pid);
    Files.delete(pid.getParent());
    if (background != null) {
      try {
        // Ended by a signal, it may take a moment to be gone.
        background.onExit().get(10, TimeUnit.SECONDS);
      } catch (TimeoutException e) {
        background.destroyForcibly(); // this test's own process, left by the run
        throw new AssertionError("the subject's background process outlived the run: " + r.err());
      }
    }
    return r;
  }

  /**
   * Regression: a subject that had started a process in the background ({@code sh -c 'helper & exec
   * subject'}) and then exited left that process running after the run: once the subject had
   * exited, its children were no longer its descendants, and the run's end found none to end.
   */
  @Test
  void run_aSubjectThatExits_leavesNothingItStartedRunning() throws Exception {
    MeshCommandTest.Run r = runLeavingABackgroundProcess("read b; exit 3", "60");
    assertThat(r.code()).as(r.err()).isEqualTo(2);
    assertThat(r.err()).contains(": it exited with status 3; that case and every later one");
  }

  /**
   * Regression: a subject that gave no answer in time was left running, with what it had started,
   * until the run ended, and the run said "it runs on". The timeout now ends both, and says so.
   */
  @Test
  void run_aSubjectThatTimesOut_isEndedWithWhatItStarted_andSaidSo() throws Exception {
    MeshCommandTest.Run r = runLeavingABackgroundProcess("exec sleep 301", "1");
    assertThat(r.code()).as(r.err()).isEqualTo(2);
    assertThat(r.err())
        .containsOnlyOnce("stopped answering at case ")
        .contains(": it gave no answer within 1 s, and was ended, with what it had started;");
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
    Path dir = Files.createDirectory(temp.resolve("pack"));
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
   * for sh, with {@link ChildJava#QUICK}: the subject answers one pack and exits.
   */
  private static String subjectCommand() {
    String java = ProcessHandle.current().info().command().orElse("java");
    return quote(java)
        + " "
        + String.join(" ", ChildJava.QUICK)
        + " -cp "
        + quote(ChildJava.classPath(Mesh.class))
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
