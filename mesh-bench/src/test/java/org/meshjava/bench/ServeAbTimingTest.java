package org.meshjava.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.sun.net.httpserver.HttpServer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The JIT figure {@code ServeAbTiming} prints is CPU its compiler threads used, a part of the
 * process's CPU: the compilation bean's total is elapsed time summed over compiler threads, and on
 * a loaded machine it read several times the CPU of the whole process (27 188 ms "of" 5 040 ms).
 */
class ServeAbTimingTest {
  @Test
  void theJitFigure_isPartOfTheProcessCpu_overAWindowThatCompiles() {
    long jit0 = ServeAbTiming.compilerCpuNanos();
    assumeTrue(jit0 >= 0, "no /proc");
    long cpu0 = ServeAbTiming.processCpuNanos();
    // Work for the compilers on both cores at once: fresh regex shapes on two threads.
    List<CompletableFuture<Integer>> work = new ArrayList<>();
    for (int t = 0; t < 2; t++) {
      int seed = t;
      work.add(
          CompletableFuture.supplyAsync(
              () -> {
                int hits = 0;
                for (int i = 0; i < 20_000; i++) {
                  Pattern p =
                      Pattern.compile(
                          "a{" + (i % 7 + seed) + "}b[c-" + (char) ('d' + i % 20) + "]");
                  hits += p.matcher("aaaaaaaaabcxyz" + i).find() ? 1 : 0;
                }
                return hits;
              }));
    }
    work.forEach(CompletableFuture::join);
    long jit = ServeAbTiming.compilerCpuNanos() - jit0;
    long cpu = ServeAbTiming.processCpuNanos() - cpu0;
    // Only the upper bound: a compiler thread the JVM stops while idle drops out of the second
    // reading, which can only understate (even below zero).
    assertThat(jit).isLessThanOrEqualTo(cpu);
  }

  @Test
  void theJitFigure_isTheCompilerThreadsCpu_fromProc() {
    long pid = ProcessHandle.current().pid();
    long before = HttpServeBenchmark.compilerCpuNanos(pid);
    assumeTrue(before >= 0, "no /proc");
    long read = ServeAbTiming.compilerCpuNanos();
    long after = HttpServeBenchmark.compilerCpuNanos(pid);
    // Elapsed compile time since start would read above the compiler threads' CPU (ticks, floored).
    assertThat(read).isLessThanOrEqualTo(after);
  }

  /**
   * The fake upstream's pool threads were {@code pool-N-thread-M}: one waiting for its next
   * exchange has no frame of the JDK's HTTP server on its stack, so the JFR scripts counted it as
   * the serve's. Named {@code fake-upstream-N}, they are left out by name.
   */
  @Test
  void theFakeUpstreamsThreads_areNamedSoTheJfrScriptsLeaveThemOut() throws Exception {
    HttpServer upstream = ServeAbTiming.fakeUpstream();
    try {
      String name =
          ((ExecutorService) upstream.getExecutor())
              .submit(() -> Thread.currentThread().getName())
              .get();
      assertThat(name).startsWith("fake-upstream-");
    } finally {
      upstream.stop(0);
      ((ExecutorService) upstream.getExecutor()).shutdownNow();
    }
  }
}
