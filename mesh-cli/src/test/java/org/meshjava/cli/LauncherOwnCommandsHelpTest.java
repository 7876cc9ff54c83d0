package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Regression: the launcher's own commands ignored {@code --help}. {@code ./mesh format --help}
 * formatted the whole tree and printed nothing, {@code ./mesh bench --help} built the benchmarks
 * and ended in JMH's stack trace ("help is not a recognized option"), and {@code ./mesh test
 * --help} printed Maven's option list. Each now prints what it runs and exits 0 without running
 * Maven. The launcher is copied beside a stand-in {@code mvnw} that notes each call.
 */
class LauncherOwnCommandsHelpTest {
  @TempDir Path root;

  private LauncherCopy.Ran launcher(String... args) throws IOException, InterruptedException {
    Path log = root.resolve("mvnw.log");
    if (!Files.exists(root.resolve("mvnw"))) {
      Files.writeString(
          root.resolve("mvnw"),
          "#!/usr/bin/env bash\necho \"$*\" >> '" + log + "'\n",
          StandardCharsets.UTF_8);
      assertThat(root.resolve("mvnw").toFile().setExecutable(true)).isTrue();
    }
    return LauncherCopy.run(root, Map.of("JAVA_HOME", System.getProperty("java.home")), args);
  }

  @Test
  void formatTestAndBench_answerHelp_withoutRunningMaven() throws Exception {
    for (String command : new String[] {"format", "test", "bench"}) {
      LauncherCopy.Ran help = launcher(command, "--help");
      assertThat(help.code()).as(command + ": " + help.out()).isZero();
      assertThat(help.out()).startsWith("Usage: mesh " + command);
    }
    assertThat(launcher("format", "-h").out()).startsWith("Usage: mesh format");
    assertThat(root.resolve("mvnw.log")).doesNotExist();
  }

  @Test
  void format_refusesAnArgument_ratherThanFormatTheTree() throws Exception {
    LauncherCopy.Ran r = launcher("format", "--check");
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.out())
        .isEqualTo("mesh format: takes no arguments, not '--check' (see 'mesh format --help')\n");
    assertThat(root.resolve("mvnw.log")).doesNotExist();
  }
}
