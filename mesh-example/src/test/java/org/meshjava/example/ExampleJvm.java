package org.meshjava.example;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.meshjava.journal.testing.ChildJava;

/** Runs an example's {@code main} as an application would be run: in a JVM of its own. */
final class ExampleJvm {
  private ExampleJvm() {}

  /** What the child JVM did. */
  record Ran(int code, String out, String err) {}

  /**
   * Runs {@code main} with {@code args} in {@code workDir}, with the flag the README tells an
   * embedding application to pass, and waits for it.
   */
  static Ran run(Class<?> main, Path workDir, String... args) throws Exception {
    Path java = Path.of(System.getProperty("java.home"), "bin", "java");
    List<String> command = new ArrayList<>(List.of(java.toString()));
    // The example ends in seconds: the quick child options the other tests' JVMs get.
    command.addAll(ChildJava.QUICK);
    command.addAll(
        List.of(
            "--enable-native-access=ALL-UNNAMED",
            "-cp",
            System.getProperty("java.class.path"),
            main.getName()));
    command.addAll(List.of(args));
    Path out = Files.createTempFile("mesh-example", ".out");
    Path err = Files.createTempFile("mesh-example", ".err");
    try {
      Process p =
          new ProcessBuilder(command)
              .directory(workDir.toFile())
              .redirectOutput(out.toFile())
              .redirectError(err.toFile())
              .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
              .start();
      assertThat(p.waitFor(120, TimeUnit.SECONDS)).as("the example finished").isTrue();
      return new Ran(
          p.exitValue(),
          Files.readString(out, StandardCharsets.UTF_8),
          Files.readString(err, StandardCharsets.UTF_8));
    } finally {
      Files.deleteIfExists(out);
      Files.deleteIfExists(err);
    }
  }
}
