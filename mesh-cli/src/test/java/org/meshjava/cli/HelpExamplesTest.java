package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;

/**
 * The command lines a help text gives as examples are ones a user can paste. The launcher is {@code
 * ./mesh} in a checkout and is not on {@code PATH} (README, "Conformance vectors"), so an example
 * that a shell runs must name it so.
 */
class HelpExamplesTest {
  /**
   * Regression: {@code mesh conformance run --help} offered {@code "mesh conformance subject"} as
   * the subject, which the shell that runs it answers {@code mesh: not found} (exit 127).
   */
  @Test
  void conformanceRun_subjectExample_namesTheLauncherByItsPath() {
    String help = help("conformance", "run", "--help");
    assertThat(help).contains("\"./mesh conformance subject\"");
    assertThat(help.replace("\"./mesh conformance subject\"", ""))
        .doesNotContain("\"mesh conformance subject\"");
  }

  private static String help(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = Mesh.run(new PrintWriter(out, true), new PrintWriter(err, true), args);
    assertThat(code).as("exit code, stderr: %s", err).isZero();
    // picocli wraps long descriptions; one line per help makes the example one string.
    return out.toString().replaceAll("\\s*\\n\\s*", " ");
  }
}
