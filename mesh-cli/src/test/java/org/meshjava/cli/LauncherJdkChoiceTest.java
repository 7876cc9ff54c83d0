package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Which JDK the launcher starts a command with where several are installed, as on a machine whose
 * {@code java} is a JDK 17 and whose JDK 25s lie under {@code /usr/lib/jvm}: the launcher is copied
 * with that folder pointed at {@code root/jvm}, which holds stand-in JDKs whose {@code java} writes
 * down which JDK it is. No {@code java} is on {@code PATH}.
 */
class LauncherJdkChoiceTest {
  @TempDir Path root;

  /**
   * A stand-in JDK at {@code home} of {@code version}; its {@code java} writes its home into {@code
   * root/started-by}, or, where {@code runs} is false, is not executable (a broken install).
   */
  private Path jdk(Path home, String version, boolean runs) throws IOException {
    return jdk(home, version, runs, "");
  }

  /** As {@link #jdk(Path, String, boolean)}, its release file saying {@code releaseLines} too. */
  private Path jdk(Path home, String version, boolean runs, String releaseLines)
      throws IOException {
    Files.createDirectories(home.resolve("bin"));
    Files.writeString(
        home.resolve("release"),
        "JAVA_VERSION=\"" + version + "\"\n" + releaseLines,
        StandardCharsets.UTF_8);
    for (String tool : List.of("java", "javac")) {
      Path p = home.resolve("bin").resolve(tool);
      Files.writeString(
          p,
          "#!/usr/bin/env bash\necho '" + home + "' > '" + root.resolve("started-by") + "'\n",
          StandardCharsets.UTF_8);
      assertThat(p.toFile().setExecutable(runs || tool.equals("javac"))).isTrue();
    }
    return home;
  }

  /** The JDK home that ran {@code mesh key show} with {@code javaHome} as JAVA_HOME (or none). */
  private String startedBy(@Nullable String javaHome) throws Exception {
    LauncherCopy.Ran ran = run(javaHome);
    assertThat(ran.code()).as(ran.out()).isZero();
    return Files.readString(root.resolve("started-by")).strip();
  }

  /** How {@code mesh key show} ran with {@code javaHome} as JAVA_HOME (or none). */
  private LauncherCopy.Ran run(@Nullable String javaHome) throws Exception {
    return run(javaHome, Map.of());
  }

  /** {@link #run(String)} with {@code settings} in the launcher's environment too. */
  private LauncherCopy.Ran run(@Nullable String javaHome, Map<String, String> settings)
      throws Exception {
    Path bin = root.resolve("bin");
    if (!Files.exists(bin)) {
      LauncherCopy.binOf(
          root, "bash", "dirname", "sed", "head", "readlink", "mktemp", "find", "uname");
    }
    Map<String, String> inherited = new HashMap<>(System.getenv());
    inherited.remove("JAVA_HOME");
    Map<String, String> env = new HashMap<>();
    env.putAll(Map.of("PATH", bin.toString(), "HOME", root.toString(), "MESH_NO_BUILD", "1"));
    if (javaHome != null) {
      env.put("JAVA_HOME", javaHome);
    }
    env.putAll(settings);
    return LauncherCopy.run(root, inherited, env, "key", "show");
  }

  /**
   * Regression: of two JDK 25 builds side by side, the launcher took the first name the folder
   * listed, an older update (25.0.2 before 25.0.10), and which one depended on the locale's order
   * of names. The newest update is taken, compared as numbers.
   */
  @Test
  void ofSeveralJdk25s_theNewestUpdateIsTaken() throws Exception {
    LauncherCopy.copyWithoutSystemJdks(root);
    jdk(root.resolve("jvm/java-25-openjdk-amd64"), "25.0.2", true);
    Path newest = jdk(root.resolve("jvm/temurin-25-jdk-amd64"), "25.0.10", true);
    jdk(root.resolve("jvm/zulu-25-amd64"), "25.0.9", true);

    assertThat(startedBy(null)).isEqualTo(newest.toString());
  }

  /** A JDK 25 whose {@code java} is not executable is passed over for one that runs. */
  @Test
  void aBrokenJdk25_isPassedOver() throws Exception {
    LauncherCopy.copyWithoutSystemJdks(root);
    Path runs = jdk(root.resolve("jvm/java-25-openjdk-amd64"), "25.0.1", true);
    jdk(root.resolve("jvm/temurin-25-jdk-amd64"), "25.0.3", false);

    assertThat(startedBy(null)).isEqualTo(runs.toString());
  }

  /**
   * Regression: a JDK 25 built for another architecture (its {@code java} executable, but for
   * another machine) was chosen, its version read from its release file without running it, and
   * every command failed. Its release file's {@code OS_ARCH} now passes it over for one built for
   * this machine, though it is the newer update; {@code amd64} and {@code arm64} count as {@code
   * x86_64} and {@code aarch64}.
   */
  @Test
  void aJdk25ForAnotherArchitecture_isPassedOver() throws Exception {
    LauncherCopy.copyWithoutSystemJdks(root);
    boolean x86 = List.of("amd64", "x86_64").contains(System.getProperty("os.arch"));
    Path here =
        jdk(
            root.resolve("jvm/java-25-openjdk"),
            "25.0.1",
            true,
            "OS_ARCH=\"" + (x86 ? "amd64" : "arm64") + "\"\n");
    jdk(
        root.resolve("jvm/temurin-25-jdk"),
        "25.0.10",
        true,
        "OS_ARCH=\"" + (x86 ? "aarch64" : "x86_64") + "\"\n");

    assertThat(startedBy(null)).isEqualTo(here.toString());
  }

  /**
   * Regression: an x86_64 JDK 25 on Apple Silicon, which Rosetta runs (slowly), was refused as
   * built for another architecture where it had run before that check, with "no JDK 25 found (only
   * … (JDK 25 for x86_64))", though it was the only JDK 25 there. Where no JDK 25 of the machine's
   * own architecture is found, one of another whose {@code java -version} runs is taken and named
   * in one line; one whose {@code java} cannot start is still named in the refusal.
   */
  @Test
  void onlyAJdk25ForAnotherArchitecture_isTakenWhereItRuns_sayingSo() throws Exception {
    LauncherCopy.copyWithoutSystemJdks(root);
    boolean x86 = List.of("amd64", "x86_64").contains(System.getProperty("os.arch"));
    String other = x86 ? "aarch64" : "x86_64";
    Path cannotStart =
        jdk(root.resolve("jvm/java-25-openjdk"), "25.0.3", true, "OS_ARCH=\"" + other + "\"\n");
    cannotStart(cannotStart);
    Path emulated =
        jdk(root.resolve("jvm/temurin-25-jdk"), "25.0.1", true, "OS_ARCH=\"" + other + "\"\n");

    LauncherCopy.Ran ran = run(null);

    assertThat(ran.code()).as(ran.out()).isZero();
    assertThat(Files.readString(root.resolve("started-by")).strip()).isEqualTo(emulated.toString());
    assertThat(ran.out())
        .containsOnlyOnce("mesh: no JDK 25 for this machine")
        .contains("running the one for " + other + " at " + emulated, "emulated");

    cannotStart(emulated);
    LauncherCopy.Ran refused = run(null);

    assertThat(refused.code()).as(refused.out()).isEqualTo(1);
    assertThat(refused.out())
        .contains("no JDK 25 found", "(JDK 25 for " + other + ")")
        .doesNotContain("running the one for");
  }

  /**
   * Regression: a {@code java} that never answered when the launcher had to start it to learn its
   * version (a JDK 25 for another architecture, under an emulator that hangs; a JDK without a
   * release file) held every command for good, without a word. Each is ended after {@code
   * MESH_JAVA_TIMEOUT_S} (here a fifth of a second) and passed over, in one line naming it. Each
   * stand-in {@code java} here is a script that starts the hung JVM as its child, not by exec, as a
   * wrapper may: ending the script left that child holding the pipe the version was read from, and
   * the launcher waited on it all the same, after saying it had passed the JDK over.
   */
  @Test
  void aJdkWhoseJavaNeverAnswers_isPassedOver_notWaitedOnForEver() throws Exception {
    LauncherCopy.copyWithoutSystemJdks(root);
    LauncherCopy.binOf(
        root,
        "bash",
        "dirname",
        "sed",
        "head",
        "readlink",
        "mktemp",
        "find",
        "uname",
        "sleep",
        "rm");
    boolean x86 = List.of("amd64", "x86_64").contains(System.getProperty("os.arch"));
    String other = x86 ? "aarch64" : "x86_64";
    Path emulated =
        jdk(root.resolve("jvm/temurin-25-jdk"), "25.0.1", true, "OS_ARCH=\"" + other + "\"\n");
    Path unknown = jdk(root.resolve("jvm/java-unknown"), "", true);
    Files.delete(unknown.resolve("release"));
    Path hung = root.resolve("hung-jvms");
    for (Path home : List.of(emulated, unknown)) {
      Files.writeString(
          home.resolve("bin/java"),
          "#!/usr/bin/env bash\nsleep 300 &\necho $! >> '" + hung + "'\nwait\n",
          StandardCharsets.UTF_8);
    }
    Path tmp = Files.createDirectories(root.resolve("tmp"));

    LauncherCopy.Ran ran;
    try {
      ran = run(null, Map.of("MESH_JAVA_TIMEOUT_S", "0.2", "TMPDIR", tmp.toString()));
    } finally {
      if (Files.exists(hung)) {
        for (String pid : Files.readAllLines(hung)) {
          ProcessHandle.of(Long.parseLong(pid.strip())).ifPresent(ProcessHandle::destroyForcibly);
        }
      }
    }

    assertThat(ran.code()).as(ran.out()).isEqualTo(1);
    assertThat(ran.out())
        .contains(
            "mesh: passed over the JDK at " + unknown + ": its java did not answer within 0.2 s",
            "mesh: passed over the JDK at " + emulated + ": its java did not answer within 0.2 s",
            "no JDK 25 found",
            "(JDK 25 for " + other + ")")
        .doesNotContain("Killed");
    try (Stream<Path> left = Files.list(tmp)) {
      assertThat(left).as("the files the answers were gathered in").isEmpty();
    }
  }

  /** Makes the stand-in JDK at {@code home} one whose {@code java} cannot start on this machine. */
  private static void cannotStart(Path home) throws IOException {
    Files.writeString(
        home.resolve("bin/java"),
        "#!/bin/sh\necho 'cannot execute binary file: Exec format error' >&2\nexit 126\n",
        StandardCharsets.UTF_8);
  }

  /**
   * Regression: on 32-bit ARM, where uname says {@code armv7l} and a JDK's release file says {@code
   * arm}, the only JDK 25 that runs was passed over as built for another architecture and every
   * command refused; and on a 32-bit system with a 64-bit kernel (uname {@code aarch64}), so was
   * the 32-bit JDK. Both are taken; an x86_64 JDK still is not.
   */
  @Test
  void aJdk25For32BitArm_isTakenOnArm() throws Exception {
    LauncherCopy.copyWithoutSystemJdks(root);
    Path bin =
        LauncherCopy.binOf(root, "bash", "dirname", "sed", "head", "readlink", "mktemp", "find");
    Path uname = bin.resolve("uname");
    Path arm = jdk(root.resolve("jvm/java-25-arm"), "25.0.1", true, "OS_ARCH=\"arm\"\r\n");
    jdk(root.resolve("jvm/temurin-25-jdk"), "25.0.10", true, "OS_ARCH=\"x86_64\"\n");
    for (String machine : List.of("armv7l", "aarch64")) {
      Files.writeString(uname, "#!/bin/sh\necho " + machine + "\n", StandardCharsets.UTF_8);
      assertThat(uname.toFile().setExecutable(true)).isTrue();

      assertThat(startedBy(null)).as(machine).isEqualTo(arm.toString());
    }
  }

  /**
   * With {@code JAVA_HOME} at a JDK 17, a JDK 25 found under {@code /usr/lib/jvm} runs the command
   * (the older one cannot), and a JDK 25 at {@code JAVA_HOME} is taken over a newer update there.
   */
  @Test
  void javaHomeAtAJdk17_givesWayToAJdk25_whileAJdk25ThereIsKept() throws Exception {
    LauncherCopy.copyWithoutSystemJdks(root);
    Path jdk17 = jdk(root.resolve("jdk-17"), "17.0.15", true);
    Path found = jdk(root.resolve("jvm/temurin-25-jdk-amd64"), "25.0.3", true);
    Path chosen = jdk(root.resolve("jdk-25"), "25.0.1", true);

    assertThat(startedBy(jdk17.toString())).isEqualTo(found.toString());
    assertThat(startedBy(chosen.toString())).isEqualTo(chosen.toString());
  }
}
