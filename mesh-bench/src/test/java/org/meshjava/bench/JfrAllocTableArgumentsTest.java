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
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code jfr-alloc-table.py}'s arguments. Regression: a bare {@code --sites} at the end of the line
 * read the next word as the count and stopped with an {@code IndexError}; it now lists the top 15
 * sites, and a count that is not a positive number is a usage line and exit 2. A recording that is
 * missing, not JSON, or JSON of another shape stopped with a traceback; it is now one line naming
 * the file, and exit 1; so is one with a negative, NaN or infinite weight, which printed negative
 * or nan shares and exit 0. Runs the script on a two-sample recording; skipped where no {@code
 * python3} is on the path, except on CI ({@code CI=true}), where a missing python3 fails it.
 */
class JfrAllocTableArgumentsTest {
  @TempDir Path tmp;

  private record Ran(int code, String out, String err) {}

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

  /** How long the script may take before the test gives up on it and ends it. */
  private static final Duration SCRIPT_LIMIT = Duration.ofSeconds(30);

  private Ran table(String... args) throws IOException, InterruptedException {
    return table(Files.writeString(tmp.resolve("a.json"), RECORDING), args);
  }

  private Ran table(Path recording, String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of("python3", "jfr-alloc-table.py"));
    command.add(recording.toString());
    command.add("4.0");
    command.addAll(List.of(args));
    Path out = tmp.resolve("out.txt");
    Path err = tmp.resolve("err.txt");
    Process p;
    try {
      p =
          new ProcessBuilder(command)
              .redirectOutput(out.toFile())
              .redirectError(err.toFile())
              .start();
    } catch (IOException noPython) {
      if ("true".equals(System.getenv("CI"))) {
        // A skip on CI would pass a smaller suite silently; .ci/run installs python3 there.
        throw new AssertionError("python3 is required on CI to run jfr-alloc-table.py", noPython);
      }
      assumeTrue(false, "no python3 on the path: " + noPython.getMessage());
      throw noPython;
    }
    awaitEnd(p, SCRIPT_LIMIT);
    return new Ran(
        p.exitValue(),
        Files.readString(out, StandardCharsets.UTF_8),
        Files.readString(err, StandardCharsets.UTF_8));
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
    Ran ran = table("--sites");
    assertThat(ran.err()).doesNotContain("Traceback");
    assertThat(ran.code()).isZero();
    assertThat(ran.out())
        .contains("| request JSON parse + ServeRequest | 75.0% | 3.00 |")
        .contains("| `Endpoints.parse:255` | `byte[]` | 75.0% | 3072 |")
        .contains("| `Buffers.take:7` | `int[]` | 25.0% | 1024 |");
  }

  @Test
  void aCountThatIsNotAPositiveNumber_isAUsageLine_exit2() throws Exception {
    // One case: each runs a Python process, which takes seconds on a loaded machine.
    Ran ran = table("--sites", "0");
    assertThat(ran.code()).isEqualTo(2);
    assertThat(ran.err()).contains("usage:").doesNotContain("Traceback");
  }

  @Test
  void aMissingRecording_isOneLineNamingIt_exit1() throws Exception {
    Ran ran = table(tmp.resolve("absent.json"));
    assertThat(ran.err()).doesNotContain("Traceback").contains("absent.json: cannot read");
    assertThat(ran.code()).isEqualTo(1);
  }

  @Test
  void aRecordingThatIsNotJfrPrintJson_isOneLineNamingIt_exit1() throws Exception {
    // Two files in one case: each script run takes seconds on a loaded machine.
    Ran text = table(Files.writeString(tmp.resolve("text.jfr"), "FLR\0 not JSON"));
    assertThat(text.err()).doesNotContain("Traceback").contains("text.jfr: not JSON");
    assertThat(text.code()).isEqualTo(1);
    Ran other = table(Files.writeString(tmp.resolve("other.json"), "{\"events\": []}"));
    assertThat(other.err())
        .doesNotContain("Traceback")
        .contains("other.json: JSON without recording.events");
    assertThat(other.code()).isEqualTo(1);
  }

  @Test
  void aRecordingNestedDeeperThanPythonRecurses_isOneLineNamingIt_exit1() throws Exception {
    Ran ran = table(Files.writeString(tmp.resolve("deep.json"), "[".repeat(200_000)));
    assertThat(ran.err()).doesNotContain("Traceback").contains("deep.json: JSON nested too deeply");
    assertThat(ran.code()).isEqualTo(1);
  }

  @Test
  void aRecordingWithOnlyZeroWeights_isOneLineNamingIt_exit1_withSitesToo() throws Exception {
    String zero =
        RECORDING
            .replace("\"weight\":3000", "\"weight\":0")
            .replace("\"weight\":1000", "\"weight\":0");
    Ran ran = table(Files.writeString(tmp.resolve("zero.json"), zero), "--sites");
    assertThat(ran.err())
        .doesNotContain("Traceback")
        .contains("zero.json: no mesh-side bytes sampled (2 events, total weight 0)");
    assertThat(ran.code()).isEqualTo(1);
  }

  @Test
  void aRecordingWithANegativeWeight_isOneLineNamingTheEvent_exit1() throws Exception {
    // A weight is a count of bytes: -3000 beside 1000 printed a share of -150% and exit 0.
    Ran ran =
        table(
            Files.writeString(
                tmp.resolve("negative.json"),
                RECORDING.replace("\"weight\":3000", "\"weight\":-3000")),
            "--sites");
    assertThat(ran.err())
        .doesNotContain("Traceback")
        .contains("negative.json: event 0 is not a jdk.ObjectAllocationSample");
    assertThat(ran.code()).isEqualTo(1);
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
