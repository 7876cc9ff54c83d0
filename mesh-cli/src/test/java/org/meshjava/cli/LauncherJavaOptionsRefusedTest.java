package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An option in {@code MESH_JAVA_OPTS} that the JVM will not start with is refused by the launcher
 * in one line naming the setting and the JVM's own words for the option, not in the JVM's three
 * lines, two of which say only that it did not start.
 */
class LauncherJavaOptionsRefusedTest {
  @TempDir Path root;

  /**
   * Regression: the run printed "Invalid maximum heap size: -Xmxlots", "Error: Could not create the
   * Java Virtual Machine." and "Error: A fatal exception has occurred. Program will exit.", naming
   * neither mesh nor MESH_JAVA_OPTS.
   */
  @Test
  void anOptionTheJvmRefuses_isOneLine_namingTheSetting() throws Exception {
    assertThat(refusal("-Xmx1g -Xmxlots"))
        .startsWith("mesh: the JVM (")
        .endsWith("will not start with MESH_JAVA_OPTS: Invalid maximum heap size: -Xmxlots");
  }

  /**
   * Regression: a failure while the VM starts gives its reason on stdout, which the check dropped:
   * "mesh: the JVM (…) will not start with MESH_JAVA_OPTS: it exited without saying why".
   */
  @Test
  void aFailureWhileTheVmStarts_namesItsReason() throws Exception {
    assertThat(refusal("-Xms64m -Xmx32m"))
        .endsWith(
            "will not start with MESH_JAVA_OPTS: Initial heap size set to a larger value than"
                + " the maximum heap size");
  }

  /**
   * Regression: the JVM asked whether it starts with {@code MESH_JAVA_OPTS} was waited on for as
   * long as it took, so one those options held up (or a hung emulated JDK) held the launcher for
   * good, before any command ran. It is held to {@code MESH_JAVA_TIMEOUT_S}, as a JDK's probe is,
   * and ended, the run refused in one line.
   */
  @Test
  void aCheckThatNeverAnswers_isEndedAfterTheTimeout_inOneLine() throws Exception {
    Path jdk = LauncherCopy.standInJdk(root);
    Path hung = root.resolve("hung");
    Files.writeString(
        jdk.resolve("bin/java"),
        "#!/usr/bin/env bash\necho $$ > '" + hung + "'\nexec sleep 300\n",
        StandardCharsets.UTF_8);
    LauncherCopy.Ran ran;
    try {
      ran =
          LauncherCopy.run(
              root,
              Map.of(
                  "JAVA_HOME", jdk.toString(),
                  "MESH_NO_BUILD", "1",
                  "MESH_JAVA_OPTS", "-Xmx2g",
                  "MESH_JAVA_TIMEOUT_S", "0.2"),
              "key",
              "show");
    } finally {
      if (Files.exists(hung)) {
        ProcessHandle.of(Long.parseLong(Files.readString(hung).strip()))
            .ifPresent(ProcessHandle::destroyForcibly);
      }
    }

    assertThat(ran.code()).as(ran.out()).isEqualTo(1);
    assertThat(ran.out().strip().lines()).as(ran.out()).hasSize(1);
    assertThat(ran.out().strip())
        .isEqualTo(
            "mesh: the JVM ("
                + jdk
                + "), started with MESH_JAVA_OPTS to check them (java OPTIONS -version), was"
                + " ended: it did not answer within 0.2 s: check MESH_JAVA_OPTS, or give it longer"
                + " with MESH_JAVA_TIMEOUT_S");
  }

  /**
   * Regression: the JVM asked about {@code MESH_JAVA_OPTS} is started in the background, where bash
   * (without job control) leaves SIGINT ignored, so Ctrl-C while it had not answered ended the
   * launcher and left that JVM running, unseen, for good; run in the foreground, as it was before
   * it was given a time limit, it ended with the launcher. Ctrl-C is the terminal's SIGINT to the
   * launcher's process group, here one of its own (setsid).
   */
  @Test
  void ctrlC_whileTheCheckHasNotAnswered_endsTheJvmAsked() throws Exception {
    Path setsid = Path.of("/usr/bin/setsid");
    assumeTrue(Files.isExecutable(setsid) && Files.isDirectory(Path.of("/proc/self")), "setsid");
    Path jdk = LauncherCopy.standInJdk(root);
    Path hung = root.resolve("hung");
    Files.writeString(
        jdk.resolve("bin/java"),
        "#!/usr/bin/env bash\necho $$ > '"
            + hung
            + ".tmp'\nmv '"
            + hung
            + ".tmp' '"
            + hung
            + "'\nexec sleep 300\n",
        StandardCharsets.UTF_8);
    Files.copy(Path.of("..", "mesh").toAbsolutePath().normalize(), root.resolve("mesh"));
    // A Ctrl-C reaches a launcher whose SIGINT is not ignored from its start, as a terminal's is;
    // a suite run from a background job (CI's `.ci/run &`) hands every process it starts SIGINT
    // ignored, which no shell can undo, so the launcher is started with it at its default.
    assumeTrue(
        resetsSigint() || !sigintIgnoredHere(), "env --default-signal, with SIGINT ignored here");
    String defaultInt = resetsSigint() ? "env --default-signal=INT " : "";
    Path ownGroup = root.resolve("own-group");
    Files.writeString(
        ownGroup,
        "#!/bin/sh\nexec " + defaultInt + setsid + " bash \"$@\"\n",
        StandardCharsets.UTF_8);
    assertThat(ownGroup.toFile().setExecutable(true)).isTrue();
    Process launcher =
        LauncherCopy.start(
            ownGroup.toString(),
            root,
            root.resolve("out.txt"),
            Map.of(
                "JAVA_HOME", jdk.toString(),
                "MESH_NO_BUILD", "1",
                "MESH_JAVA_OPTS", "-Xmx2g",
                "MESH_JAVA_TIMEOUT_S", "60"),
            "key",
            "show");
    long java = -1;
    try {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (!Files.exists(hung)) {
        assertThat(launcher.isAlive()).as(Files.readString(root.resolve("out.txt"))).isTrue();
        assertThat(System.nanoTime()).as("the JVM is asked").isLessThan(deadline);
        Thread.sleep(10);
      }
      java = Long.parseLong(Files.readString(hung).strip());
      Process ctrlC =
          new ProcessBuilder("kill", "-INT", "--", "-" + launcher.pid()).inheritIO().start();
      assertThat(ctrlC.waitFor(10, TimeUnit.SECONDS)).isTrue();
      assertThat(ctrlC.exitValue()).isZero();

      assertThat(launcher.waitFor(30, TimeUnit.SECONDS)).as("the launcher ends").isTrue();
      deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (runs(java) && System.nanoTime() < deadline) {
        Thread.sleep(10);
      }
      assertThat(runs(java))
          .as("the JVM asked about MESH_JAVA_OPTS ends with the launcher")
          .isFalse();
    } finally {
      launcher.destroyForcibly();
      if (java > 0) {
        ProcessHandle.of(java).ifPresent(ProcessHandle::destroyForcibly);
      }
    }
  }

  /** Whether this machine's {@code env} starts a command with a signal at its default (GNU). */
  private static boolean resetsSigint() throws IOException, InterruptedException {
    Process p =
        new ProcessBuilder("env", "--default-signal=INT", "true")
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .start();
    return p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0;
  }

  /** Whether this JVM was started with SIGINT ignored (bit 1 of /proc's SigIgn mask). */
  private static boolean sigintIgnoredHere() throws IOException {
    for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
      if (line.startsWith("SigIgn:")) {
        return (Long.parseUnsignedLong(line.substring(7).strip(), 16) & 2L) != 0;
      }
    }
    return false;
  }

  /** Whether process {@code pid} runs (a zombie has ended), read from /proc. */
  private static boolean runs(long pid) throws IOException {
    Path stat = Path.of("/proc", Long.toString(pid), "stat");
    try {
      String s = Files.readString(stat);
      return !s.substring(s.lastIndexOf(')') + 2).startsWith("Z");
    } catch (NoSuchFileException e) {
      return false;
    }
  }

  /** The JVM is asked once per value: later runs with it start only the command's own JVM. */
  @Test
  void aValueTheJvmTakes_isAskedAboutOnce() throws Exception {
    Path jdk = askingJdk();
    Path asked = root.resolve("asked");
    // The JDK installed well before the check, as a real one is.
    Files.setLastModifiedTime(
        jdk.resolve("release"), FileTime.from(Instant.parse("2025-01-01T00:00:00Z")));
    Files.createDirectories(root.resolve("mesh-cli/target"));
    Map<String, String> env =
        Map.of("JAVA_HOME", jdk.toString(), "MESH_NO_BUILD", "1", "MESH_JAVA_OPTS", "-Xmx2g");
    for (int i = 0; i < 2; i++) {
      LauncherCopy.Ran ran = LauncherCopy.run(root, env, "key", "show");
      assertThat(ran.code()).as(ran.out()).isZero();
    }
    assertThat(Files.readAllLines(asked)).hasSize(1);
    // Another value is asked about again.
    keyShow(jdk, "-Xmx3g");
    assertThat(Files.readAllLines(asked)).hasSize(2);
  }

  /**
   * Regression: only the last value was remembered, so two option sets used in turn (one checkout's
   * serve and another's tool, or two shells) asked the JVM again on every run: 4 asks here, not 2.
   * (A property is not asked about: see {@link #onlyOptionsTheJvmMerelyParses_areAskedAbout}.)
   */
  @Test
  void twoValuesUsedInTurn_areEachAskedAboutOnce() throws Exception {
    Path jdk = askingJdk();
    Files.setLastModifiedTime(
        jdk.resolve("release"), FileTime.from(Instant.parse("2025-01-01T00:00:00Z")));
    Files.createDirectories(root.resolve("mesh-cli/target"));
    for (String value :
        new String[] {"-Xmx2g", "-Xmx3g\n-Dmesh.a=1", "-Xmx2g", "-Xmx3g\n-Dmesh.a=1"}) {
      LauncherCopy.Ran ran = keyShow(jdk, value);
      assertThat(ran.code()).as(ran.out()).isZero();
    }
    assertThat(Files.readAllLines(root.resolve("asked")))
        .containsExactly("-Xmx2g -version", "-Xmx3g -version");
  }

  /**
   * Regression: the check ran every option under {@code -version} too, so one that writes a file
   * when a JVM starts or ends (a flight recording, a class archive, a log file) wrote, rotated or
   * truncated it once more before the real run. They are left to the real run; the rest is asked.
   */
  @Test
  void optionsThatWriteAFile_areLeftOutOfTheCheck() throws Exception {
    Path jdk = askingJdk();
    Files.createDirectories(root.resolve("mesh-cli/target"));
    String writers =
        "-XX:StartFlightRecording=filename=r.jfr -XX:ArchiveClassesAtExit=a.jsa"
            + " -XX:SharedArchiveFile=b.jsa -XX:+AutoCreateSharedArchive -Xlog:gc:file=gc.log"
            + " -Xlog:safepoint:s.log -XX:AOTCacheOutput=c.aot";
    assertThat(keyShow(jdk, "-Xmx2g " + writers + " -Xlog:gc -Xlog:gc:stderr").code()).isZero();
    // The switch among them is asked about switched off, which writes nothing; the text options
    // only by the JVM's table of options (PrintFlagsFinal), which writes nothing either.
    assertThat(Files.readAllLines(root.resolve("asked")))
        .containsExactly(
            "-Xmx2g -XX:-AutoCreateSharedArchive -Xlog:gc -Xlog:gc:stderr -XX:+PrintFlagsFinal"
                + " -version");
    // A value of such options alone asks nothing that writes.
    Files.delete(root.resolve("asked"));
    assertThat(keyShow(jdk, writers).code()).isZero();
    assertThat(Files.readAllLines(root.resolve("asked")))
        .containsExactly("-XX:-AutoCreateSharedArchive -XX:+PrintFlagsFinal -version");
    Files.delete(root.resolve("asked"));
    assertThat(keyShow(jdk, writers.replace(" -XX:+AutoCreateSharedArchive", "")).code()).isZero();
    assertThat(Files.readAllLines(root.resolve("asked")))
        .containsExactly("-XX:+PrintFlagsFinal -version");
    // (-Xloggc:, once among them, is refused now: theOldGcLogOption_isRefused_namingItsXlogForm.)
  }

  /**
   * Regression: the check left out only the options on a list of file writers, so an argument file,
   * a flags or options file (which may hold any option), {@code +PauseAtStartup} (the check waited
   * for its file to go) and {@code DumpLoadedClassList=} or {@code +DumpPerfMapAtExit} (written by
   * the check) were each run under {@code -version}. Only options of a shape the JVM merely parses
   * are asked about now; whatever else is given goes to the real run unasked.
   */
  @Test
  void onlyOptionsTheJvmMerelyParses_areAskedAbout() throws Exception {
    Path jdk = askingJdk();
    Files.createDirectories(root.resolve("mesh-cli/target"));
    // Files of options are looked for now (optionsTheCheckCannotRun_areRefusedInOneLine): here.
    Files.writeString(root.resolve(".hotspotrc"), "");
    Files.writeString(root.resolve("vm.options"), "");
    // (An argument file and -Xshare:dump, once here, are refused now:
    // optionsTheCheckCannotRun_areRefusedInOneLine.)
    String unjudged =
        "-XX:Flags=.hotspotrc -XX:VMOptionsFile=vm.options -XX:+PauseAtStartup"
            + " -XX:DumpLoadedClassList=classes.lst -XX:+UnlockDiagnosticVMOptions"
            + " -XX:+DumpPerfMapAtExit -XX:PerfDataSaveFile=p.hsperf -XX:NativeMemoryTracking=summary"
            + " -Djdk.invoke.MethodHandle.dumpClassFiles=true"
            + " --add-opens java.base/java.lang=ALL-UNNAMED -XX:+SomeFutureSwitch";
    String parsed =
        "-Xmx2g -Xss2m -XX:MaxRAMPercentage=75.5 -XX:MaxMetaspaceSize=256m -XX:+UseZGC"
            + " --add-modules=jdk.incubator.vector -Xlog:gc";
    assertThat(keyShow(jdk, unjudged + " " + parsed).code()).isZero();
    assertThat(Files.readAllLines(root.resolve("asked")))
        .containsExactly(
            "-XX:-PauseAtStartup -XX:+UnlockDiagnosticVMOptions -XX:-DumpPerfMapAtExit"
                + " --add-opens=java.base/java.lang=ALL-UNNAMED -XX:-SomeFutureSwitch -Xmx2g -Xss2m -XX:MaxRAMPercentage=75.5"
                + " -XX:MaxMetaspaceSize=256m -XX:+UseZGC --add-modules=jdk.incubator.vector"
                + " -Xlog:gc -XX:+PrintFlagsFinal -version");
    Files.delete(root.resolve("asked"));
    String unasked =
        unjudged
            .replace("-XX:+UnlockDiagnosticVMOptions", "")
            .replace("-XX:+PauseAtStartup", "")
            .replace("-XX:+DumpPerfMapAtExit", "")
            .replace("-XX:+SomeFutureSwitch", "")
            .replace("--add-opens java.base/java.lang=ALL-UNNAMED", "");
    assertThat(keyShow(jdk, unasked).code()).isZero();
    // None of them is asked about: the JVM prints only its table of options.
    assertThat(Files.readAllLines(root.resolve("asked")))
        .containsExactly("-XX:+PrintFlagsFinal -version");
  }

  /**
   * Regression: with only the shapes above asked about, a misspelt switch went to the real run
   * unasked, whose JVM printed "Unrecognized VM option 'HeapDumpOnOutOfMemory'" and two lines more,
   * naming neither mesh nor MESH_JAVA_OPTS. A switch is asked about switched off.
   */
  @Test
  void aMisspeltSwitch_isOneLine_namingTheSetting() throws Exception {
    assertThat(refusal("-Xmx1g -XX:+HeapDumpOnOutOfMemory"))
        .startsWith("mesh: the JVM (")
        .endsWith(
            "will not start with MESH_JAVA_OPTS: Unrecognized VM option 'HeapDumpOnOutOfMemory'");
  }

  /**
   * Regression: an -X option other than the sizes was not asked about, so a misspelt one went to
   * the real run, whose JVM printed "Unrecognized option: -Xmz8g" and a line more, naming neither
   * mesh nor MESH_JAVA_OPTS.
   */
  @Test
  void aMisspeltXOption_isOneLine_namingTheSetting() throws Exception {
    assertThat(refusal("-Xmx1g -Xmz8g"))
        .startsWith("mesh: the JVM (")
        .endsWith("will not start with MESH_JAVA_OPTS: Unrecognized option: -Xmz8g");
  }

  /**
   * Regression: a word without a dash (a value split from its option: {@code -Xmx 8g}) went to the
   * real run, where the JVM took it for the main class and ran nothing the launcher named.
   */
  @Test
  void aWordWithoutADash_isOneLine_namingTheSetting() throws Exception {
    assertThat(refusal("-Xmx1g 8g"))
        .isEqualTo(
            "mesh: MESH_JAVA_OPTS holds '8g', which is no JVM option (each begins with -), nor"
                + " the value of one before it");
  }

  /**
   * What the check cannot run without doing what it does (an argument file holds any option; a
   * class archive dump runs no command; a class or module path or main replaces the launcher's; an
   * agent's missing file) is refused in one line naming the setting and the option, never left to
   * the JVM's lines.
   */
  @Test
  void optionsTheCheckCannotRun_areRefusedInOneLine() throws Exception {
    for (String o :
        new String[] {
          "@more.args",
          "-Xshare:dump",
          "-jar",
          "-cp",
          "--module-path=lib",
          "-m",
          "-javaagent:" + root.resolve("none.jar"),
          "-agentpath:" + root.resolve("none.so=a=b"),
          "-XX:Flags=" + root.resolve("none.rc"),
          "-XX:VMOptionsFile=" + root.resolve("none.options")
        }) {
      assertThat(refusal("-Xmx1g " + o))
          .startsWith("mesh: MESH_JAVA_OPTS holds '" + o + "', which");
    }
  }

  /**
   * Regression: the module options that take the next word as their value, other than the four
   * {@code --add-...} ones and {@code --enable-native-access}, had their value refused as "no JVM
   * option (each begins with -), nor the value of one before it", though the JVM takes them.
   */
  @Test
  void everyModuleOptionsNextWordValue_isAskedAboutInItsOneWordForm() throws Exception {
    Path jdk = askingJdk();
    Files.createDirectories(root.resolve("mesh-cli/target"));
    LauncherCopy.Ran ran =
        keyShow(
            jdk,
            "--limit-modules java.base,java.logging --patch-module m.x=patches"
                + " --upgrade-module-path up");
    assertThat(ran.code()).as(ran.out()).isZero();
    assertThat(Files.readAllLines(root.resolve("asked")))
        .containsExactly(
            "--limit-modules=java.base,java.logging --patch-module=m.x=patches"
                + " --upgrade-module-path=up -version");
  }

  /**
   * Regression: an option after which the JVM prints or checks something and exits before the main
   * class runs was asked about, passed, and went to the real run, which ended at once without
   * running the command: {@code --dry-run} with status 0 and not a word.
   */
  @Test
  void optionsThatEndTheJvmBeforeTheCommand_areRefusedInOneLine() throws Exception {
    for (String o :
        new String[] {
          "--dry-run",
          "-version",
          "--version",
          "--help",
          "-?",
          "-X",
          "--help-extra",
          "--list-modules",
          "--validate-modules",
          "--describe-module=java.base",
          "-d"
        }) {
      assertThat(refusal("-Xmx1g " + o))
          .isEqualTo(
              "mesh: MESH_JAVA_OPTS holds '"
                  + o
                  + "', which stops the JVM before the mesh"
                  + " command runs");
    }
  }

  /** An agent whose file is there is left to the real run, unasked. */
  @Test
  void anAgentWhoseFileIsThere_isLeftToTheRealRun() throws Exception {
    Path agent = Files.writeString(root.resolve("agent.jar"), "");
    Path jdk = askingJdk();
    assertThat(keyShow(jdk, "-javaagent:" + agent + "=verbose").code()).isZero();
    assertThat(root.resolve("asked")).doesNotExist();
  }

  /**
   * Regression: the check ran with the JVM's own settings from the environment, so a bad option in
   * {@code JAVA_TOOL_OPTIONS} was refused as "will not start with MESH_JAVA_OPTS", and a file
   * writer there ran once more under {@code -version}. The check asks about MESH_JAVA_OPTS alone;
   * the command's own JVM still has them.
   */
  @Test
  void theJvmsEnvironmentSettings_areLeftToTheRealRun() throws Exception {
    Path jdk = LauncherCopy.standInJdk(root);
    Path seen = root.resolve("seen");
    Files.writeString(
        jdk.resolve("bin/java"),
        "#!/usr/bin/env bash\nprintf '%s %s|%s|%s\\n' \"${*: -1}\" \"${JAVA_TOOL_OPTIONS-}\""
            + " \"${JDK_JAVA_OPTIONS-}\" \"${_JAVA_OPTIONS-}\" >> '"
            + seen
            + "'\n",
        StandardCharsets.UTF_8);
    Files.createDirectories(root.resolve("mesh-cli/target"));
    LauncherCopy.Ran ran =
        LauncherCopy.run(
            root,
            Map.of(
                "JAVA_HOME", jdk.toString(),
                "MESH_NO_BUILD", "1",
                "MESH_JAVA_OPTS", "-Xmx2g",
                "JAVA_TOOL_OPTIONS", "-XX:DumpLoadedClassList=t.lst",
                "JDK_JAVA_OPTIONS", "-Xlog:gc:file=j.log",
                "_JAVA_OPTIONS", "-Xmxlots"),
            "key",
            "show");
    assertThat(ran.code()).as(ran.out()).isZero();
    assertThat(Files.readAllLines(seen))
        .containsExactly(
            "-version ||", "show -XX:DumpLoadedClassList=t.lst|-Xlog:gc:file=j.log|-Xmxlots");
  }

  /** With a real JVM: the bad option is in JAVA_TOOL_OPTIONS, and MESH_JAVA_OPTS is not blamed. */
  @Test
  void aBadOptionInJavaToolOptions_isNotBlamedOnMeshJavaOpts() throws Exception {
    LauncherCopy.Ran ran =
        LauncherCopy.run(
            root,
            Map.of(
                "JAVA_HOME", System.getProperty("java.home"),
                "MESH_NO_BUILD", "1",
                "MESH_JAVA_OPTS", "-Xmx1g",
                "JAVA_TOOL_OPTIONS", "-Xmxlots"),
            "key",
            "show");
    assertThat(ran.code()).isEqualTo(1);
    assertThat(ran.out())
        .doesNotContain("MESH_JAVA_OPTS")
        .contains("Picked up JAVA_TOOL_OPTIONS: -Xmxlots", "Invalid maximum heap size: -Xmxlots");
  }

  /**
   * Regression: where the answer cannot be kept (a read-only checkout; here no mesh-cli/target to
   * keep it in), every run printed bash's own "…/.mesh-java-opts-checked: No such file or
   * directory" before the command's output.
   */
  @Test
  void anAnswerThatCannotBeKept_addsNoLine() throws Exception {
    Path jdk = askingJdk();
    LauncherCopy.Ran ran = keyShow(jdk, "-Xmx2g");
    assertThat(ran.code()).as(ran.out()).isZero();
    assertThat(ran.out()).isEmpty();
  }

  /** A debugger told to wait (suspend=y) would hold the check: the real run alone starts it. */
  @Test
  void anAgentOrDebugger_isLeftToTheRealRun() throws Exception {
    Path jdk = askingJdk();
    // The debugger's library is the JDK's, where the launcher looks for an -agentlib: library.
    Files.writeString(Files.createDirectories(jdk.resolve("lib")).resolve("libjdwp.so"), "");
    Path asked = root.resolve("asked");
    LauncherCopy.Ran ran =
        keyShow(jdk, "-agentlib:jdwp=transport=dt_socket,server=y,suspend=y,address=21590");
    assertThat(ran.code()).as(ran.out()).isZero();
    assertThat(asked).doesNotExist();
  }

  /**
   * Regression: a dash alone was refused as "no JVM option (each begins with -)", though it begins
   * with one.
   */
  @Test
  void aDashAlone_isRefusedAsADashAlone() throws Exception {
    assertThat(refusal("-Xmx1g -"))
        .isEqualTo("mesh: MESH_JAVA_OPTS holds '-', which is a dash alone, no JVM option");
  }

  /**
   * Regression: {@code -Xloggc:} went to the real run unasked, whose JVM took it as {@code
   * -Xlog:gc:FILE} with a deprecation warning on stdout, amid the command's own output, on every
   * run. It is refused, naming the form to write.
   */
  @Test
  void theOldGcLogOption_isRefused_namingItsXlogForm() throws Exception {
    assertThat(refusal("-Xmx1g -Xloggc:gc.log"))
        .isEqualTo(
            "mesh: MESH_JAVA_OPTS holds '-Xloggc:gc.log', which is the old form of"
                + " -Xlog:gc:file=gc.log (the JVM warns of it on every run): write that instead");
  }

  /**
   * Regression: a log file in a folder that is not there went to the real run, whose JVM printed
   * "Error opening log file" and three lines more, naming neither mesh nor MESH_JAVA_OPTS. The
   * folder is looked for here; the file is still written by the real run alone.
   */
  @Test
  void aLogFileInAMissingFolder_isOneLine() throws Exception {
    String o = "-Xlog:gc:file=" + root.resolve("none/gc.log");
    assertThat(refusal("-Xmx1g " + o))
        .isEqualTo(
            "mesh: MESH_JAVA_OPTS holds '"
                + o
                + "', which names a log file in a folder that is not there or that this user"
                + " cannot write");
  }

  /**
   * Regression: an agent library named without its path ({@code -agentlib:}, or its old form {@code
   * -Xrun}) that is nowhere to be found went to the real run, whose JVM printed "Could not find
   * agent library" under "Error occurred during initialization of VM". It is looked for in the JDK
   * and on LD_LIBRARY_PATH, and refused in one line naming {@code -agentpath:} where it is not; one
   * found there is left to the real run, unasked (loading it runs it).
   */
  @Test
  void anAgentLibraryFoundNowhere_isOneLine_andOneOnTheLibraryPathIsLeftToTheRealRun()
      throws Exception {
    for (String o : new String[] {"-agentlib:nosuch=verbose", "-Xrunnosuch:verbose"}) {
      assertThat(refusal("-Xmx1g " + o))
          .startsWith("mesh: MESH_JAVA_OPTS holds '" + o + "', which names an agent library,")
          .endsWith("name the agent by its file with -agentpath:FILE");
    }
    Path libs = Files.createDirectories(root.resolve("libs"));
    Files.writeString(libs.resolve("libmine.so"), "");
    Path jdk = askingJdk();
    LauncherCopy.Ran ran =
        LauncherCopy.run(
            root,
            Map.of(
                "JAVA_HOME",
                jdk.toString(),
                "MESH_NO_BUILD",
                "1",
                "LD_LIBRARY_PATH",
                libs.toString(),
                "MESH_JAVA_OPTS",
                "-agentlib:mine=a -Xrunmine:b"),
            "key",
            "show");
    assertThat(ran.code()).as(ran.out()).isZero();
    assertThat(root.resolve("asked")).doesNotExist();
  }

  /**
   * Regression: an agent library installed where the system keeps libraries (a folder of
   * /etc/ld.so.conf, in the loader's cache) was refused as found nowhere, though the JVM hands the
   * bare name to the system's loader, which finds it there. One the loader's cache ({@code ldconfig
   * -p}, here a stand-in's) lists is left to the real run, unasked.
   */
  @Test
  void anAgentLibraryInTheLoadersCache_isLeftToTheRealRun() throws Exception {
    Path jdk = askingJdk();
    // First on the launcher's PATH, which begins with the JDK's bin.
    Path ldconfig = jdk.resolve("bin/ldconfig");
    Files.writeString(
        ldconfig,
        "#!/bin/sh\necho '1 libs found in cache'\n"
            + "printf '\\tlibmine.so (libc6,x86-64) => /opt/mine/lib/libmine.so\\n'\n",
        StandardCharsets.UTF_8);
    assertThat(ldconfig.toFile().setExecutable(true)).isTrue();
    LauncherCopy.Ran ran = keyShow(jdk, "-agentlib:mine=start -Xrunmine:b");
    assertThat(ran.code()).as(ran.out()).isZero();
    assertThat(root.resolve("asked")).doesNotExist();
    // One the cache does not list is still refused in one line.
    ran = keyShow(jdk, "-agentlib:nosuch");
    assertThat(ran.code()).isEqualTo(1);
    assertThat(ran.out().strip())
        .startsWith("mesh: MESH_JAVA_OPTS holds '-agentlib:nosuch', which names an agent library,")
        .endsWith("name the agent by its file with -agentpath:FILE");
  }

  /**
   * Regression: a {@code -XX} option given a text value went to the real run unasked, so a misspelt
   * name ({@code HeapDumpPth}) got the JVM's four lines. Its value is not asked about (it may name
   * a file to write), but its name is looked up in the JVM's own table of options: one the JVM has
   * passes the check.
   */
  @Test
  void aTextOptionTheJvmDoesNotHave_isOneLine() throws Exception {
    assertThat(refusal("-Xmx1g -XX:HeapDumpPth=" + root.resolve("dumps")))
        .startsWith(
            "mesh: MESH_JAVA_OPTS holds '-XX:HeapDumpPth="
                + root.resolve("dumps")
                + "', which this JVM (")
        .endsWith(
            ") takes as no option with a text value: misspelt, a number's option given a word, or"
                + " one locked without -XX:+UnlockDiagnosticVMOptions or"
                + " -XX:+UnlockExperimentalVMOptions");
    assertThat(refusal("-XX:MaxHeapSize=lots")).contains("takes as no option with a text value");
    // One the JVM has passes: what follows is the real run's (no build here, so no module).
    assertThat(keyShowOnThisJdk("-XX:HeapDumpPath=" + root.resolve("dumps")).out())
        .doesNotContain("mesh:")
        .contains("org.meshjava.cli");
  }

  /**
   * Regression: a flight recording started in the colon form the JVM takes too ({@code
   * -XX:StartFlightRecording:filename=r.jfr}, as {@code -XX:FlightRecorderOptions:}) was refused as
   * an option this JVM does not have: its name was read up to the '=', colon and setting included.
   * It is left to the real run.
   */
  @Test
  void aFlightRecordingInTheColonForm_isLeftToTheRealRun() throws Exception {
    String o = "-XX:StartFlightRecording:filename=" + root.resolve("r.jfr") + ",settings=profile";
    assertThat(keyShowOnThisJdk(o + " -XX:FlightRecorderOptions:repository=" + root).out())
        .doesNotContain("mesh:")
        .contains("org.meshjava.cli");
    // A misspelt one is still refused in one line.
    assertThat(refusal("-XX:StartFlightRecordin:filename=r.jfr"))
        .contains("takes as no option with a text value");
  }

  /**
   * Regression: beside a {@code -XX} option given a text value (for which the JVM is asked for its
   * table of options), a module option the JVM will not start with was refused as "… will not start
   * with MESH_JAVA_OPTS: [Global flags]": the table's heading, printed before the module's failure,
   * was taken for the JVM's reason. The reason is the JVM's own line.
   */
  @Test
  void aFailureBesideATextOption_isTheJvmsReason_notItsTableOfOptions() throws Exception {
    assertThat(refusal("--add-modules=nosuch -XX:HeapDumpPath=" + root))
        .endsWith(
            "will not start with MESH_JAVA_OPTS: java.lang.module.FindException: Module nosuch not"
                + " found");
  }

  /** {@code mesh key show} run without building, on {@code jdk}, with {@code MESH_JAVA_OPTS}. */
  private LauncherCopy.Ran keyShow(Path jdk, String meshJavaOpts) throws Exception {
    return LauncherCopy.run(
        root,
        Map.of("JAVA_HOME", jdk.toString(), "MESH_NO_BUILD", "1", "MESH_JAVA_OPTS", meshJavaOpts),
        "key",
        "show");
  }

  /**
   * The one line {@code mesh key show} is refused with, status 1, on this JDK given {@code value}.
   */
  private String refusal(String value) throws Exception {
    LauncherCopy.Ran ran = keyShowOnThisJdk(value);
    assertThat(ran.code()).isEqualTo(1);
    assertThat(ran.out().strip().lines()).as(ran.out()).hasSize(1);
    return ran.out().strip();
  }

  /** {@code mesh key show} run without building, on this JDK, with {@code MESH_JAVA_OPTS}. */
  private LauncherCopy.Ran keyShowOnThisJdk(String meshJavaOpts) throws Exception {
    return keyShow(Path.of(System.getProperty("java.home")), meshJavaOpts);
  }

  /**
   * A stand-in JDK 25 whose {@code java} starts with any option and notes in {@code root/asked}
   * each time it is asked whether it would ({@code -version}), one line of the options asked about.
   */
  private Path askingJdk() throws java.io.IOException {
    Path jdk = LauncherCopy.standInJdk(root);
    Files.writeString(
        jdk.resolve("bin/java"),
        "#!/usr/bin/env bash\n"
            + "for a in \"$@\"; do [ \"$a\" = -version ] && echo \"$*\" >> '"
            + root.resolve("asked")
            + "'; done\nexit 0\n",
        StandardCharsets.UTF_8);
    return jdk;
  }
}
