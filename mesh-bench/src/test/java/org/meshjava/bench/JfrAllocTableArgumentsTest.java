package org.meshjava.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code jfr-alloc-table.py}'s arguments. Regression: a bare {@code --sites} at the end of the line
 * read the next word as the count and stopped with an {@code IndexError}; it now lists the top 15
 * sites, and a count that is not a positive number is a usage line and exit 2. A recording that is
 * missing, not JSON, or JSON of another shape stopped with a traceback; it is now one line naming
 * the file, and exit 1; so is one with a negative, NaN or infinite weight, which printed negative
 * or nan shares and exit 0. {@code jfr-serve-table.py} too: it kept its own copy of the mesh-side
 * rule, which counted JFR's and {@code Common-Cleaner}'s samples as Jetty's (both scripts now
 * import the one rule from {@code jfr_mesh_side.py}), and a bare {@code --top}, a missing file,
 * JSON of another shape or no mesh-side sample ended in a traceback. Runs the scripts on small
 * recordings; skipped where no {@code python3} is on the path, except on CI ({@code CI=true}),
 * where a missing python3 fails it. Every case runs in one Python process started once for the
 * class ({@link #HARNESS}): a process per case cost 3 to 13 s a run on a loaded two-core machine.
 */
class JfrAllocTableArgumentsTest {
  /** Where the recordings are written, and each case's output. */
  @TempDir static Path tmp;

  private record Ran(int code, String out, String err) {}

  /** One run of a script: its name (for the result), the script, and its arguments. */
  private record Case(String name, String script, List<String> args) {}

  /** Two samples: 3 000 bytes under a frame of ours, 1 000 under Jetty's alone. */
  private static final String RECORDING =
      """
      {"recording":{"events":[
       {"values":{"eventThread":{"javaName":"qtp-1"},"weight":3000,"objectClass":{"name":"byte[]"},
        "stackTrace":{"frames":[{"method":{"type":{"name":"org/meshjava/openai/Endpoints"},
         "name":"parse"},"lineNumber":255}]}}},
       {"values":{"eventThread":{"javaName":"qtp-2"},"weight":1000,"objectClass":{"name":"int[]"},
        "stackTrace":{"frames":[{"method":{"type":{"name":"org/eclipse/jetty/io/Buffers"},
         "name":"take"},"lineNumber":7}]}}}]}}
      """;

  /**
   * Three samples: 3 000 bytes on a Jetty thread under a frame of ours, 1 000 on {@code main} in a
   * serve ({@code ServeAbTiming} serves on {@code main}, in-process), and 5 000 on {@code main}
   * with no frame of ours outside mesh-bench ({@code HttpServeBenchmark}'s main only drives and
   * times the load). With {@code "weight"} read as one CPU sample each, the same shape is a {@code
   * jdk.CPUTimeSample} recording for {@code jfr-serve-table.py}.
   */
  private static final String MAIN_SERVES =
      """
      {"recording":{"events":[
       {"values":{"eventThread":{"javaName":"qtp-1"},"weight":3000,"objectClass":{"name":"byte[]"},
        "stackTrace":{"frames":[{"method":{"type":{"name":"org/meshjava/openai/Endpoints"},
         "name":"parse"},"lineNumber":255}]}}},
       {"values":{"eventThread":{"javaName":"main"},"weight":1000,"objectClass":{"name":"byte[]"},
        "stackTrace":{"frames":[
         {"method":{"type":{"name":"org/meshjava/core/crypto/SigningKey"},"name":"sign"},
          "lineNumber":90},
         {"method":{"type":{"name":"org/meshjava/openai/ServeAbWorker"},"name":"run"},
          "lineNumber":40},
         {"method":{"type":{"name":"org/meshjava/bench/ServeAbTiming"},"name":"time"},
          "lineNumber":227}]}}},
       {"values":{"eventThread":{"javaName":"main"},"weight":5000,"objectClass":{"name":"long[]"},
        "stackTrace":{"frames":[
         {"method":{"type":{"name":"java/lang/Thread"},"name":"sleep"},"lineNumber":1},
         {"method":{"type":{"name":"org/meshjava/bench/HttpServeBenchmark"},"name":"drive"},
          "lineNumber":731}]}}}]}}
      """;

  /**
   * A {@code ServeAbTiming} recording's four kinds of sample: 1 000 bytes on {@code main} in a
   * timed serve; 7 000 on {@code main} readying the batch, untimed (a granted body's presentation
   * signed under {@code ServeAbWorker.prepare}); 2 000 in its fake upstream's handler on a JDK HTTP
   * server pool thread, and 4 000 on that server's dispatcher thread. Only the first is the mesh
   * side's.
   */
  private static final String AB_TIMING =
      """
      {"recording":{"events":[
       {"values":{"eventThread":{"javaName":"main"},"weight":1000,"objectClass":{"name":"byte[]"},
        "stackTrace":{"frames":[
         {"method":{"type":{"name":"org/meshjava/core/crypto/SigningKey"},"name":"sign"},
          "lineNumber":90},
         {"method":{"type":{"name":"org/meshjava/openai/ServeAbWorker"},"name":"run"},
          "lineNumber":40},
         {"method":{"type":{"name":"org/meshjava/bench/ServeAbTiming"},"name":"time"},
          "lineNumber":227}]}}},
       {"values":{"eventThread":{"javaName":"main"},"weight":7000,"objectClass":{"name":"byte[]"},
        "stackTrace":{"frames":[
         {"method":{"type":{"name":"org/meshjava/core/crypto/SigningKey"},"name":"sign"},
          "lineNumber":90},
         {"method":{"type":{"name":"org/meshjava/openai/GrantedBodies"},"name":"next"},
          "lineNumber":73},
         {"method":{"type":{"name":"org/meshjava/openai/ServeAbWorker"},"name":"prepare"},
          "lineNumber":75},
         {"method":{"type":{"name":"org/meshjava/bench/ServeAbTiming"},"name":"time"},
          "lineNumber":220}]}}},
       {"values":{"eventThread":{"javaName":"pool-1-thread-1"},"weight":2000,
        "objectClass":{"name":"byte[]"},"stackTrace":{"frames":[
         {"method":{"type":{"name":"java/io/InputStream"},"name":"readAllBytes"},"lineNumber":1},
         {"method":{"type":{"name":"org/meshjava/bench/ServeAbTiming"},
          "name":"lambda$fakeUpstream$0"},"lineNumber":340},
         {"method":{"type":{"name":"sun/net/httpserver/ServerImpl$Exchange"},"name":"run"},
          "lineNumber":800}]}}},
       {"values":{"eventThread":{"javaName":"HTTP-Dispatcher"},"weight":4000,
        "objectClass":{"name":"int[]"},"stackTrace":{"frames":[
         {"method":{"type":{"name":"sun/net/httpserver/ServerImpl$Dispatcher"},"name":"run"},
          "lineNumber":400}]}}}]}}
      """;

  /**
   * Four samples of 1 000 bytes (or one CPU sample each): one in a serve on a Jetty thread, and one
   * on each of the JVM's own threads a recording samples too, JFR's recorder and the cleaner of
   * unreachable buffers, which are never the mesh side's.
   */
  private static final String JVM_THREADS =
      """
      {"recording":{"events":[
       {"values":{"eventThread":{"javaName":"qtp-1"},"weight":1000,"objectClass":{"name":"byte[]"},
        "stackTrace":{"frames":[{"method":{"type":{"name":"org/meshjava/openai/Endpoints"},
         "name":"parse"},"lineNumber":255}]}}},
       {"values":{"eventThread":{"javaName":"JFR Recorder Thread"},"weight":1000,
        "objectClass":{"name":"long[]"},"stackTrace":{"frames":[
         {"method":{"type":{"name":"jdk/jfr/internal/JVM"},"name":"emitOldObjectSamples"},
          "lineNumber":1}]}}},
       {"values":{"eventThread":{"javaName":"JFR Periodic Tasks"},"weight":1000,
        "objectClass":{"name":"long[]"},"stackTrace":{"frames":[
         {"method":{"type":{"name":"jdk/jfr/internal/PeriodicEvents"},"name":"doPeriodic"},
          "lineNumber":1}]}}},
       {"values":{"eventThread":{"javaName":"Common-Cleaner"},"weight":1000,
        "objectClass":{"name":"long[]"},"stackTrace":{"frames":[
         {"method":{"type":{"name":"jdk/internal/ref/CleanerImpl"},"name":"run"},
          "lineNumber":1}]}}}]}}
      """;

  /** How long the one Python process that runs every case may take before it is ended. */
  private static final Duration SCRIPT_LIMIT = Duration.ofSeconds(60);

  /**
   * Runs each case's script in this one Python process, as {@code python3 SCRIPT ARGS...} would:
   * {@code sys.argv} set, run as {@code __main__}, its exit code and what it wrote kept; an
   * exception that escapes it is printed as Python would print it (a traceback) with exit code 1. A
   * Python start takes seconds on a loaded machine, so one start for all cases, not one each.
   */
  private static final String HARNESS =
      """
      import contextlib, io, runpy, sys, traceback
      cases, out = sys.argv[1], sys.argv[2]
      for line in open(cases, encoding="utf-8").read().splitlines():
          name, script, *args = line.split("\t")
          stdout, stderr = io.StringIO(), io.StringIO()
          sys.argv = [script, *args]
          code = 0
          with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
              try:
                  runpy.run_path(script, run_name="__main__")
              except SystemExit as e:
                  if isinstance(e.code, int) or e.code is None:
                      code = e.code or 0
                  else:
                      print(e.code, file=sys.stderr)
                      code = 1
              except BaseException:
                  traceback.print_exc()
                  code = 1
          for ext, text in (("out", stdout.getvalue()), ("err", stderr.getvalue()), ("code", str(code))):
              with open(f"{out}/{name}.{ext}", "w", encoding="utf-8") as f:
                  f.write(text)
      """;

  private static final String ALLOC = "jfr-alloc-table.py";

  private static final String SERVE = "jfr-serve-table.py";

  /** Each case's result by name; empty where there is no python3 (each test then skips). */
  private static final Map<String, Ran> RAN = new HashMap<>();

  private static String noPython;

  private static Path write(String name, String text) throws IOException {
    return Files.writeString(tmp.resolve(name), text);
  }

  private static Case alloc(String name, Path recording, String... args) {
    List<String> all = new ArrayList<>(List.of(recording.toString(), "4.0"));
    all.addAll(List.of(args));
    return new Case(name, ALLOC, all);
  }

  private static Case serve(String name, Path recording, String... args) {
    List<String> all = new ArrayList<>(List.of(recording.toString()));
    all.addAll(List.of(args));
    return new Case(name, SERVE, all);
  }

  @BeforeAll
  static void runEveryCase() throws IOException, InterruptedException {
    Path recording = write("a.json", RECORDING);
    String zero =
        RECORDING
            .replace("\"weight\":3000", "\"weight\":0")
            .replace("\"weight\":1000", "\"weight\":0");
    List<Case> cases =
        List.of(
            alloc("bareSites", recording, "--sites"),
            alloc("sitesZero", recording, "--sites", "0"),
            alloc("absent", tmp.resolve("absent.json")),
            alloc("text", write("text.jfr", "FLR\0 not JSON")),
            alloc("other", write("other.json", "{\"events\": []}")),
            alloc("deep", write("deep.json", "[".repeat(200_000))),
            alloc("zero", write("zero.json", zero), "--sites"),
            alloc(
                "negative",
                write("negative.json", RECORDING.replace("\"weight\":3000", "\"weight\":-3000")),
                "--sites"),
            alloc("mainServes", write("main.json", MAIN_SERVES), "--sites"),
            serve("serveTableMainServes", tmp.resolve("main.json")),
            alloc("abTiming", write("ab.json", AB_TIMING), "--sites"),
            serve("serveTableAbTiming", tmp.resolve("ab.json")),
            alloc("jvmThreads", write("jvm.json", JVM_THREADS), "--sites"),
            serve("serveTableJvmThreads", tmp.resolve("jvm.json")),
            serve("serveTableBareTop", recording, "2.0", "--top"),
            serve("serveTableTopZero", recording, "--top", "0"),
            serve("serveTableTopBeforeMeshUs", recording, "--top", "2", "2.0"),
            serve("serveTableAbsent", tmp.resolve("absent.json")),
            serve("serveTableText", tmp.resolve("text.jfr")),
            serve("serveTableOther", tmp.resolve("other.json")),
            serve("serveTableDeep", tmp.resolve("deep.json")),
            serve(
                "serveTableFrameless",
                write(
                    "frameless.json",
                    "{\"recording\":{\"events\":[{\"values\":{\"eventThread\":"
                        + "{\"javaName\":\"qtp-1\"},\"stackTrace\":{\"frames\":[{}]}}}]}}")),
            // A stack of no frame at all: its innermost frame was read outside the event's check.
            serve(
                "serveTableNoFrames",
                write(
                    "noframes.json",
                    "{\"recording\":{\"events\":[{\"values\":{\"eventThread\":"
                        + "{\"javaName\":\"qtp-1\"},\"stackTrace\":{\"frames\":[]}}}]}}")),
            serve("serveTableNoMeshSide", write("none.json", "{\"recording\":{\"events\":[]}}")),
            new Case("kbNan", ALLOC, List.of(recording.toString(), "nan")),
            new Case("kbNegative", ALLOC, List.of(recording.toString(), "-4")),
            serve("serveTableMeshUsInf", recording, "inf"),
            serve("serveTableMeshUsNegative", recording, "-2.0"),
            serve("serveTableMeshUsWord", recording, "fast"));
    runAll(cases);
  }

  private static void runAll(List<Case> cases) throws IOException, InterruptedException {
    Path out = Files.createDirectory(tmp.resolve("out"));
    StringBuilder lines = new StringBuilder();
    for (Case c : cases) {
      lines.append(c.name()).append('\t').append(c.script());
      c.args().forEach(a -> lines.append('\t').append(a));
      lines.append('\n');
    }
    Path list = write("cases.tsv", lines.toString());
    Process p;
    try {
      p =
          new ProcessBuilder("python3", "-c", HARNESS, list.toString(), out.toString())
              .redirectErrorStream(true)
              .redirectOutput(tmp.resolve("harness.txt").toFile())
              .start();
    } catch (IOException missing) {
      if ("true".equals(System.getenv("CI"))) {
        // A skip on CI would pass a smaller suite silently; .ci/run installs python3 there.
        throw new AssertionError("python3 is required on CI to run jfr-alloc-table.py", missing);
      }
      noPython = "no python3 on the path: " + missing.getMessage();
      return;
    }
    awaitEnd(p, SCRIPT_LIMIT);
    assertThat(p.exitValue())
        .as("the harness: %s", Files.readString(tmp.resolve("harness.txt")))
        .isZero();
    for (Case c : cases) {
      RAN.put(
          c.name(),
          new Ran(
              Integer.parseInt(Files.readString(out.resolve(c.name() + ".code")).strip()),
              Files.readString(out.resolve(c.name() + ".out"), StandardCharsets.UTF_8),
              Files.readString(out.resolve(c.name() + ".err"), StandardCharsets.UTF_8)));
    }
  }

  /** What the case named {@code name} printed and returned; skips where there is no python3. */
  private static Ran ran(String name) {
    assumeTrue(noPython == null, noPython);
    return RAN.get(name);
  }

  /**
   * Waits for {@code p} to end; one that has not within {@code limit} is killed before the test
   * fails, and one still running when the wait is interrupted is killed before the interrupt goes
   * on, so a hung script does not outlive the test run (holding its files, and the build's machine,
   * until someone finds it).
   */
  static void awaitEnd(Process p, Duration limit) throws InterruptedException {
    boolean ended;
    try {
      ended = p.waitFor(limit.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      // Interrupted (the run is being stopped): the script is ended too, not left running.
      p.destroyForcibly();
      throw e;
    }
    if (!ended) {
      p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      throw new AssertionError("the script did not end within " + limit + "; killed");
    }
  }

  @Test
  void aBareSites_atTheEndOfTheLine_listsTheTopSites() throws Exception {
    Ran ran = ran("bareSites");
    assertThat(ran.err()).doesNotContain("Traceback");
    assertThat(ran.code()).isZero();
    assertThat(ran.out())
        .contains("| request JSON parse + ServeRequest | 75.0% | 3.00 |")
        .contains("| `Endpoints.parse:255` | `byte[]` | 75.0% | 3072 |")
        .contains("| `Buffers.take:7` | `int[]` | 25.0% | 1024 |");
  }

  @Test
  void aCountThatIsNotAPositiveNumber_isAUsageLine_exit2() throws Exception {
    Ran ran = ran("sitesZero");
    assertThat(ran.code()).isEqualTo(2);
    assertThat(ran.err()).contains("usage:").doesNotContain("Traceback");
  }

  @Test
  void aMissingRecording_isOneLineNamingIt_exit1() throws Exception {
    Ran ran = ran("absent");
    assertThat(ran.err()).doesNotContain("Traceback").contains("absent.json: cannot read");
    assertThat(ran.code()).isEqualTo(1);
  }

  @Test
  void aRecordingThatIsNotJfrPrintJson_isOneLineNamingIt_exit1() throws Exception {
    Ran text = ran("text");
    assertThat(text.err()).doesNotContain("Traceback").contains("text.jfr: not JSON");
    assertThat(text.code()).isEqualTo(1);
    Ran other = ran("other");
    assertThat(other.err())
        .doesNotContain("Traceback")
        .contains("other.json: JSON without recording.events");
    assertThat(other.code()).isEqualTo(1);
  }

  @Test
  void aRecordingNestedDeeperThanPythonRecurses_isOneLineNamingIt_exit1() throws Exception {
    Ran ran = ran("deep");
    assertThat(ran.err()).doesNotContain("Traceback").contains("deep.json: JSON nested too deeply");
    assertThat(ran.code()).isEqualTo(1);
  }

  @Test
  void aRecordingWithOnlyZeroWeights_isOneLineNamingIt_exit1_withSitesToo() throws Exception {
    Ran ran = ran("zero");
    assertThat(ran.err())
        .doesNotContain("Traceback")
        .contains("zero.json: no mesh-side bytes sampled (2 events, total weight 0)");
    assertThat(ran.code()).isEqualTo(1);
  }

  @Test
  void aRecordingWithANegativeWeight_isOneLineNamingTheEvent_exit1() throws Exception {
    // A weight is a count of bytes: -3000 beside 1000 printed a share of -150% and exit 0.
    Ran ran = ran("negative");
    assertThat(ran.err())
        .doesNotContain("Traceback")
        .contains("negative.json: event 0 is not a jdk.ObjectAllocationSample");
    assertThat(ran.code()).isEqualTo(1);
  }

  @Test
  void aServeOnTheThreadNamedMain_isMeshSide_whileMainDrivingTheLoadIsNot() throws Exception {
    // ServeAbTiming serves on main: dropping every main sample left the serve's own bytes out.
    Ran ran = ran("mainServes");
    assertThat(ran.err()).isEmpty();
    assertThat(ran.code()).isZero();
    assertThat(ran.out())
        .contains("| Ed25519 signature (SigningKey.sign) | 25.0% | 1.00 |")
        .contains("| request JSON parse + ServeRequest | 75.0% | 3.00 |")
        .contains("| `SigningKey.sign:90` | `byte[]` | 25.0% | 1024 |")
        .doesNotContain("long[]")
        .doesNotContain("HttpServeBenchmark");
  }

  @Test
  void jfrServeTable_aServeOnTheThreadNamedMain_isMeshSide_whileMainDrivingTheLoadIsNot()
      throws Exception {
    Ran ran = ran("serveTableMainServes");
    assertThat(ran.err()).isEmpty();
    assertThat(ran.code()).isZero();
    assertThat(ran.out())
        .contains("2 samples of mesh-side threads")
        .contains("| Ed25519 signature (SigningKey.sign) | 50.0% | 0.0% |")
        .contains("| request JSON parse + ServeRequest derive | 50.0% | 0.0% |");
  }

  @Test
  void serveAbTimingsFakeUpstream_andItsUntimedReadyingOnMain_areNotMeshSide() throws Exception {
    // Both were counted: the JDK HTTP server's threads as Jetty's and the floor proxy's work, and
    // a granted batch's presentations, signed before it is timed, as the serve's signature.
    Ran ran = ran("abTiming");
    assertThat(ran.err()).isEmpty();
    assertThat(ran.code()).isZero();
    assertThat(ran.out())
        .contains("| Ed25519 signature (SigningKey.sign) | 100.0% | 4.00 |")
        .contains("| `SigningKey.sign:90` | `byte[]` | 100.0% | 4096 |")
        .doesNotContain("ServerImpl")
        .doesNotContain("fakeUpstream")
        .doesNotContain("int[]");
    Ran serveTable = ran("serveTableAbTiming");
    assertThat(serveTable.err()).isEmpty();
    assertThat(serveTable.code()).isZero();
    assertThat(serveTable.out())
        .contains("1 samples of mesh-side threads")
        .contains("| Ed25519 signature (SigningKey.sign) | 100.0% | 0.0% |");
  }

  @Test
  void theJvmsOwnThreads_JfrAndCommonCleaner_areNotMeshSide_inEitherScript() throws Exception {
    // jfr-serve-table.py kept its own copy of the rule, without these two names: their samples
    // were counted as Jetty's read and dispatch.
    Ran alloc = ran("jvmThreads");
    assertThat(alloc.err()).isEmpty();
    assertThat(alloc.code()).isZero();
    assertThat(alloc.out())
        .contains("| request JSON parse + ServeRequest | 100.0% | 4.00 |")
        .doesNotContain("long[]");
    Ran serveTable = ran("serveTableJvmThreads");
    assertThat(serveTable.err()).isEmpty();
    assertThat(serveTable.code()).isZero();
    assertThat(serveTable.out())
        .contains("1 samples of mesh-side threads")
        .contains("| request JSON parse + ServeRequest derive | 100.0% | 0.0% |")
        .contains("| Jetty server read/dispatch (outside the handler) | 0.0% | 0.0% |");
  }

  @Test
  void jfrServeTable_aBareTop_atTheEndOfTheLine_listsTheTopMethods() throws Exception {
    Ran ran = ran("serveTableBareTop");
    assertThat(ran.err()).doesNotContain("Traceback");
    assertThat(ran.code()).isZero();
    assertThat(ran.out())
        .contains("| method, by self (total: under half the samples) | share of samples | µs/req |")
        .contains("| `org.meshjava.openai.Endpoints.parse` | 50.0% | 1.0 |")
        .contains("| `org.eclipse.jetty.io.Buffers.take` | 50.0% | 1.0 |");
    Ran zero = ran("serveTableTopZero");
    assertThat(zero.code()).isEqualTo(2);
    assertThat(zero.err()).contains("usage:").doesNotContain("Traceback");
  }

  @Test
  void jfrServeTable_theMeshUs_afterTheTopCount_isStillRead() throws Exception {
    // recording --top 2 2.0: the hand-read arguments took it; parsed in one pass, the optional
    // mesh_us took nothing before --top, and 2.0 after it was an unrecognized argument, exit 2.
    Ran ran = ran("serveTableTopBeforeMeshUs");
    assertThat(ran.err()).isEmpty();
    assertThat(ran.code()).isZero();
    assertThat(ran.out())
        .contains("| method, by self (total: under half the samples) | share of samples | µs/req |")
        .contains("| `org.meshjava.openai.Endpoints.parse` | 50.0% | 1.0 |");
  }

  @Test
  void jfrServeTable_aRecordingItCannotRead_isOneLineNamingIt_exit1() throws Exception {
    for (String[] c :
        new String[][] {
          {"serveTableAbsent", "absent.json: cannot read"},
          {"serveTableText", "text.jfr: not JSON"},
          {"serveTableOther", "other.json: JSON without recording.events"},
          {"serveTableDeep", "deep.json: JSON nested too deeply"},
          {"serveTableFrameless", "frameless.json: event 0 is not a jdk.CPUTimeSample"},
          {"serveTableNoFrames", "noframes.json: event 0 is not a jdk.CPUTimeSample"},
          {"serveTableNoMeshSide", "none.json: no mesh-side samples (0 events)"}
        }) {
      Ran ran = ran(c[0]);
      assertThat(ran.err())
          .as(c[0])
          .doesNotContain("Traceback")
          .startsWith("jfr-serve-table.py: error: ")
          .contains(c[1]);
      assertThat(ran.err().strip().lines()).as(c[0]).hasSize(1);
      assertThat(ran.code()).as(c[0]).isEqualTo(1);
    }
  }

  @Test
  void aPerRequestFigureThatIsNotAFiniteNumberZeroOrMore_isAUsageLine_exit2_inEitherScript()
      throws Exception {
    // float() took them: nan, inf and negative figures printed nan, inf or negative shares, exit 0.
    for (String[] c :
        new String[][] {
          {"kbNan", "'nan'"},
          {"kbNegative", "'-4'"},
          {"serveTableMeshUsInf", "'inf'"},
          {"serveTableMeshUsNegative", "'-2.0'"},
          {"serveTableMeshUsWord", "not a number: 'fast'"}
        }) {
      Ran ran = ran(c[0]);
      assertThat(ran.code()).as(c[0]).isEqualTo(2);
      assertThat(ran.err()).as(c[0]).contains("usage:").contains(c[1]).doesNotContain("Traceback");
      assertThat(ran.out()).as(c[0]).isEmpty();
    }
  }

  /** A process that would run for a minute: the stand-in for a hung script; skipped without one. */
  private static Process sleeping() throws IOException {
    try {
      return new ProcessBuilder("sleep", "60").start();
    } catch (IOException noSleep) {
      assumeTrue(false, "no sleep command: " + noSleep.getMessage());
      throw noSleep;
    }
  }

  @Test
  void aWaitThatIsInterrupted_killsTheScriptBeforeItGoesOn() throws Exception {
    Process hung = sleeping();
    try {
      Thread.currentThread().interrupt();
      assertThatThrownBy(() -> awaitEnd(hung, Duration.ofSeconds(30)))
          .isInstanceOf(InterruptedException.class);
      Thread.interrupted();
      assertThat(hung.waitFor(5, TimeUnit.SECONDS))
          .as("the script, once the wait for it was interrupted")
          .isTrue();
    } finally {
      Thread.interrupted();
      hung.destroyForcibly();
    }
  }

  @Test
  void aScriptThatHangs_isKilledBeforeTheTestFails() throws Exception {
    Process hung = sleeping();
    try {
      assertThatThrownBy(() -> awaitEnd(hung, Duration.ofMillis(50)))
          .isInstanceOf(AssertionError.class)
          .hasMessageContaining("did not end");
      assertThat(hung.isAlive()).as("the hung process, after the test gave up on it").isFalse();
    } finally {
      hung.destroyForcibly();
    }
  }
}
