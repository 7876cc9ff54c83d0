package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Regression: with {@code JAVA_HOME} set to a JDK 17 and no JDK 25 anywhere, the launcher said "no
 * JDK 25 found. Install one (e.g. Temurin 25) or set JAVA_HOME to it.", which reads as if {@code
 * JAVA_HOME} were unset. It now names the older JDKs it found, with their versions, and where it
 * looked. The launcher is copied with {@code /usr/lib/jvm} pointed at an empty folder (this host
 * has a JDK 25 there), run with a {@code PATH} holding only the tools it needs before it looks, so
 * no {@code java} is found there either, and with a stand-in JDK 17 as {@code JAVA_HOME}.
 */
class LauncherNoJdk25Test {
  @TempDir Path root;

  @Test
  void withOnlyAJdk17_theRefusalNamesItAndItsVersion_andWhereItLooked() throws Exception {
    LauncherCopy.copyWithoutSystemJdks(root);
    Path jdk17 = Files.createDirectories(root.resolve("jdk-17").resolve("bin"));
    Files.writeString(
        jdk17.getParent().resolve("release"), "JAVA_VERSION=\"17.0.15\"\n", StandardCharsets.UTF_8);
    for (String tool : List.of("java", "javac")) {
      Path p = jdk17.resolve(tool);
      Files.writeString(p, "#!/bin/sh\nexit 0\n", StandardCharsets.UTF_8);
      assertThat(p.toFile().setExecutable(true)).isTrue();
    }
    Path bin = LauncherCopy.binOf(root, "bash", "dirname", "sed", "head", "readlink");

    LauncherCopy.Ran r =
        LauncherCopy.run(
            root,
            Map.of(
                "JAVA_HOME", jdk17.getParent().toString(),
                "PATH", bin.toString(),
                "HOME", root.toString()),
            "demo");

    assertThat(r.code()).as(r.out()).isEqualTo(1);
    assertThat(r.out())
        .isEqualTo(
            "mesh: no JDK 25 found (only "
                + jdk17.getParent().toRealPath()
                + " (JDK 17)); looked at JAVA_HOME, in /usr/lib/jvm, the macOS and SDKMAN"
                + " locations and the java on PATH. Install a JDK 25 (e.g. Temurin 25) and set"
                + " JAVA_HOME to it.\n");
  }
}
