package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.meshjava.journal.testing.ChildJava;

/**
 * {@code mesh verify -} started with standard input closed ({@code <&-}, as a cron line or a
 * careless service unit may start it) read the JDK's module image, which the JVM had opened into
 * the free descriptor 0, and refused "standard input" as "not text (binary data, or not UTF-8)". It
 * now says that standard input was closed.
 */
class StandardInputClosedTest {
  @Test
  void verifyDash_withStandardInputClosed_saysItIsClosed_notThatItIsBinary() throws Exception {
    assumeTrue(Files.isSymbolicLink(Path.of("/proc/self/fd/0")), "Linux /proc only");
    List<String> cmd = new ArrayList<>(List.of("sh", "-c", "exec \"$@\" <&-", "sh"));
    cmd.addAll(ChildJava.command(Mesh.class, "verify", "-"));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(out).isEqualTo(1);
    assertThat(out)
        .contains("mesh verify: cannot read envelope file standard input: it was closed")
        .doesNotContain("not text");
  }

  @Test
  void descriptorZeroOnAFileOfTheJdk_isTakenForClosed_andAnythingElseIsNot() {
    Path javaHome = Path.of(System.getProperty("java.home"));
    assumeTrue(Files.isSymbolicLink(Path.of("/proc/self/fd/0")), "Linux /proc only");
    // This test JVM's standard input is surefire's pipe or a terminal: not closed.
    assertThat(InputFile.StandardInput.startedClosed(Path.of("/proc/self/fd/0"), javaHome))
        .isFalse();
    // Not a link at all (a platform without /proc): no guess.
    assertThat(InputFile.StandardInput.startedClosed(Path.of("/nonexistent/fd/0"), javaHome))
        .isFalse();
  }
}
