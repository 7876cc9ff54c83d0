package org.meshjava.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code mesh bench ARGS} hands its arguments to JMH. Regression: an option JMH does not know
 * ({@code mesh bench --help}) ended in a stack trace of {@code CommandLineOptionException}, and
 * JMH's own {@code -h} or {@code -l} would have run every benchmark, since only JMH's entry point
 * answers them. A mistake is now one line on stderr and exit 2; {@code -h} prints JMH's help and
 * runs nothing. Each case runs {@link BenchMain} in a JVM of its own, since it exits.
 */
class BenchMainArgumentsTest {
  @TempDir Path tmp;

  private record Ran(int code, String out, String err) {}

  private Ran bench(String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(BenchMain.class.getName());
    command.addAll(List.of(args));
    Path out = tmp.resolve("out.txt");
    Path err = tmp.resolve("err.txt");
    Process p =
        new ProcessBuilder(command)
            .redirectOutput(out.toFile())
            .redirectError(err.toFile())
            .start();
    boolean ended = p.waitFor(30, TimeUnit.SECONDS);
    if (!ended) {
      p.destroyForcibly().waitFor();
    }
    assertThat(ended).as("BenchMain ends (a benchmark run would not, in time)").isTrue();
    return new Ran(p.exitValue(), Files.readString(out), Files.readString(err));
  }

  @Test
  void anOptionJmhDoesNotKnow_isOneLineAndExit2_notAStackTrace() throws Exception {
    Ran r = bench("--help");
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err())
        .startsWith("mesh bench: help is not a recognized option")
        .doesNotContain("Exception")
        .hasLineCount(1);
    assertThat(r.out()).isEmpty();
  }

  @Test
  void jmhHelp_printsItsOptions_andRunsNoBenchmark() throws Exception {
    Ran r = bench("-h");
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out()).contains("Usage:").doesNotContain("# Benchmark:");
  }
}
