package org.meshjava.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link ServeAbTiming}'s command line and what it counts. Regressions: {@code ROUNDS} of 0, and a
 * build given without {@code =}, each ended in an {@code ArrayIndexOutOfBoundsException} (the first
 * after every build had been warmed); each is now refused in one line naming the argument, as is a
 * build directory with no jar in it (a {@code NoClassDefFoundError}'s trace). Only the timing
 * thread's CPU was counted, so work a build moved to another thread read as a saving; the process's
 * CPU over the same serves is now counted beside it.
 */
class ServeAbArgumentsTest {
  @TempDir Path jars;

  @BeforeEach
  void aJarInTheBuild() throws IOException {
    Files.createFile(jars.resolve("mesh-core.jar"));
  }

  @Test
  void aWellFormedLine_isReadInOrder() {
    ServeAbArguments a =
        ServeAbArguments.parse("granted", "30", "200", "10", "a=" + jars, "b=" + jars);
    assertThat(a.scenario()).isEqualTo("granted");
    assertThat(a.rounds()).isEqualTo(30);
    assertThat(a.perRound()).isEqualTo(200);
    assertThat(a.warm()).isEqualTo(10);
    assertThat(a.builds()).extracting(ServeAbArguments.NamedBuild::name).containsExactly("a", "b");
    assertThat(a.builds().get(1).jars()).isEqualTo(jars);
  }

  @Test
  void zeroRounds_isRefusedNamingRounds() {
    assertThatThrownBy(() -> ServeAbArguments.parse("proxied", "0", "200", "10", "a=" + jars))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("ROUNDS must be at least 1, not 0");
  }

  @Test
  void aBuildWithoutEquals_isRefusedNamingIt() {
    assertThatThrownBy(() -> ServeAbArguments.parse("proxied", "3", "200", "10", jars.toString()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("build '" + jars + "' is not NAME=JAR_DIR");
    assertThatThrownBy(() -> ServeAbArguments.parse("proxied", "3", "200", "10", "=" + jars))
        .hasMessageContaining("is not NAME=JAR_DIR");
    assertThatThrownBy(() -> ServeAbArguments.parse("proxied", "3", "200", "10", "a="))
        .hasMessageContaining("is not NAME=JAR_DIR");
  }

  @Test
  void everyOtherMistake_isRefusedInOneLine() {
    String b = "a=" + jars;
    assertThatThrownBy(() -> ServeAbArguments.parse("proxied", "3", "200", "10"))
        .hasMessageContaining("got 4 arguments");
    assertThatThrownBy(() -> ServeAbArguments.parse("stream", "3", "200", "10", b))
        .hasMessageContaining("unknown scenario stream");
    assertThatThrownBy(() -> ServeAbArguments.parse("proxied", "three", "200", "10", b))
        .hasMessage("ROUNDS is not a whole number: three");
    assertThatThrownBy(() -> ServeAbArguments.parse("proxied", "3", "0", "10", b))
        .hasMessage("PER_ROUND must be at least 1, not 0");
    assertThatThrownBy(() -> ServeAbArguments.parse("proxied", "3", "200", "-1", b))
        .hasMessage("WARM must be at least 0, not -1");
    assertThatThrownBy(
            () -> ServeAbArguments.parse("proxied", "3", "200", "1", "a=" + jars.resolve("none")))
        .hasMessageContaining("is not a directory");
  }

  @Test
  void aDirectoryWithoutJars_isRefusedNamingIt() throws IOException {
    // mesh-cli/target for mesh-cli/target/lib: a NoClassDefFoundError's trace, after starting.
    Path target = Files.createDirectory(jars.resolve("target"));
    assertThatThrownBy(() -> ServeAbArguments.parse("proxied", "3", "200", "1", "a=" + target))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("build a: " + target + " holds no .jar");
  }

  @Test
  void workHandedToAnotherThread_countsInTheProcessCpu_notTheThreads() throws Exception {
    // A "build" whose serve has another thread spin for 5 ms of its own CPU and waits for it.
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    Runnable elsewhere =
        () ->
            CompletableFuture.runAsync(
                    () -> {
                      long until = threads.getCurrentThreadCpuTime() + 5_000_000;
                      while (threads.getCurrentThreadCpuTime() < until) {
                        Thread.onSpinWait();
                      }
                    })
                .join();
    ServeAbTiming.Build build = new ServeAbTiming.Build("moved", elsewhere, n -> {}, () -> {});
    double[] t = ServeAbTiming.time(build, 3);
    // The process's CPU holds the other thread's 5 ms, whatever the load; the timing thread's
    // holds only the hand-off.
    assertThat(t).hasSize(3);
    assertThat(t[2]).as("process CPU ns per serve").isGreaterThan(t[0] + 4_000_000);
  }
}
