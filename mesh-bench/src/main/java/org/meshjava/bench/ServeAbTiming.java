package org.meshjava.bench;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.lang.reflect.Method;
import java.net.InetSocketAddress;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.stream.Stream;

/**
 * Whole serves of several builds in one JVM, in thread CPU time and bytes allocated per serve, for
 * a loaded machine where wall-clock figures move with other processes (mesh-bench/README.md,
 * session 40). CPU is printed twice: the timing thread's, and the whole process's over the same
 * serves (session 41), so that work a build moves off the serving thread does not read as saved.
 * Each build is a directory of its jars (a {@code mesh-cli/target/lib} as {@code mvnw -pl mesh-cli
 * -am package} leaves it, or {@code http-compare.sh}'s old-commit builds); each gets its own class
 * loader over them (parent: the platform loader, so nothing of this jar's mesh classes is seen),
 * and {@code org.meshjava.openai.ServeAbWorker} is defined afresh in each, from this jar's bytes,
 * so it links to that build's binding and steward. The serve is the worker's: {@code
 * Endpoints.handle} of a chat body and the reply rendered, on the timing thread; for {@code
 * proxied} the upstream is a fake one here (the JDK's HTTP server, {@code HttpServeBenchmark}'s
 * reply), whose threads are not counted.
 *
 * <p>Rounds run the builds in order, then in reverse in the next round (A, B; B, A), after {@code
 * warm} passes of each; the first third of the rounds is dropped. Each figure is the median over
 * rounds of the per-serve mean with its quartiles [in brackets] and range; each ratio to the first
 * build is the median of per-round ratios, with their quartiles and range. The CPU the JIT's
 * compiler threads used over the kept rounds is printed too, with its share of the process's CPU:
 * builds whose code is still compiling show there first (for the process as a whole, not per
 * build).
 *
 * <p>Usage: {@code ServeAbTiming SCENARIO ROUNDS PER_ROUND WARM NAME=JAR_DIR NAME=JAR_DIR ...},
 * SCENARIO {@code proxied}, {@code reference} or {@code granted} (each batch's presentations signed
 * before it is timed); a line it cannot run is refused in one line and exit 2 ({@link
 * ServeAbArguments}). The process's CPU is read through the foreign-function API: run with {@code
 * --enable-native-access=ALL-UNNAMED} to spare the JDK's warning about it.
 */
public final class ServeAbTiming {
  private static final String WORKER = "org.meshjava.openai.ServeAbWorker";

  /** Defined beside the worker in each build's loader (mesh-bench's, identical in each build). */
  private static final List<String> OURS = List.of(WORKER, "org.meshjava.openai.GrantedBodies");

  private static final com.sun.management.ThreadMXBean THREADS =
      (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

  private ServeAbTiming() {}

  /** A loader over one build's jars that defines the worker itself, from {@code bytes}. */
  private static final class BuildLoader extends URLClassLoader {
    private final ClassLoader source;

    BuildLoader(String name, URL[] jars, ClassLoader source) {
      super(name, jars, ClassLoader.getPlatformClassLoader());
      this.source = source;
    }

    @Override
    protected Class<?> findClass(String name) throws ClassNotFoundException {
      if (OURS.stream().anyMatch(o -> name.equals(o) || name.startsWith(o + "$"))) {
        try (InputStream in = source.getResourceAsStream(name.replace('.', '/') + ".class")) {
          if (in == null) {
            throw new ClassNotFoundException(name);
          }
          byte[] b = in.readAllBytes();
          return defineClass(name, b, 0, b.length);
        } catch (IOException e) {
          throw new ClassNotFoundException(name, e);
        }
      }
      return super.findClass(name);
    }
  }

  /** Readies a batch of {@code n} serves, untimed. */
  @FunctionalInterface
  interface Prepare {
    void batch(int n) throws Exception;
  }

  /** One build: its name and its worker. */
  record Build(String name, Runnable serve, Prepare prepare, AutoCloseable closer) {}

  /** Entry point: a command line {@link ServeAbArguments} refuses is one line and exit 2. */
  public static void main(String[] args) throws Exception {
    ServeAbArguments a;
    try {
      a = ServeAbArguments.parse(args);
    } catch (IllegalArgumentException e) {
      System.err.println("ServeAbTiming: " + e.getMessage());
      System.err.println(ServeAbArguments.USAGE);
      System.exit(2);
      return;
    }
    HttpServer upstream = fakeUpstream();
    String base = "http://127.0.0.1:" + upstream.getAddress().getPort() + "/v1";
    List<Build> builds = new ArrayList<>();
    try {
      for (ServeAbArguments.NamedBuild nb : a.builds()) {
        ClassLoader loader =
            new BuildLoader(nb.name(), jars(nb.jars()), ServeAbTiming.class.getClassLoader());
        Object w =
            Class.forName(WORKER, true, loader)
                .getMethod("open", String.class, String.class)
                .invoke(null, a.scenario(), base);
        Method prepare = w.getClass().getMethod("prepare", int.class);
        builds.add(
            new Build(nb.name(), (Runnable) w, m -> prepare.invoke(w, m), (AutoCloseable) w));
      }
      run(a.scenario(), builds, a.rounds(), a.perRound(), a.warm());
    } finally {
      for (Build b : builds) {
        b.closer().close();
      }
      upstream.stop(0);
      ((ExecutorService) upstream.getExecutor()).shutdownNow();
    }
  }

  private static void run(String scenario, List<Build> builds, int rounds, int n, int warm)
      throws Exception {
    int k = builds.size();
    for (int w = 0; w < warm; w++) {
      for (Build b : builds) {
        time(b, n);
      }
    }
    int drop = rounds / 3;
    double[][][] f = new double[k][rounds - drop][];
    long jit0 = 0;
    long cpu0 = 0;
    for (int r = 0; r < rounds; r++) {
      if (r == drop) {
        jit0 = compilerCpuNanos();
        cpu0 = processCpuNanos();
      }
      for (int j = 0; j < k; j++) {
        int i = r % 2 == 0 ? j : k - 1 - j;
        double[] t = time(builds.get(i), n);
        if (r >= drop) {
          f[i][r - drop] = t;
        }
      }
    }
    long jitTo = compilerCpuNanos();
    long used = processCpuNanos() - cpu0;
    System.out.printf(
        Locale.ROOT,
        "%s: %d rounds of %d serves (%d kept), %d warm-up passes; JIT %s of %d ms process CPU"
            + " in the kept rounds%n",
        scenario,
        rounds,
        n,
        rounds - drop,
        warm,
        jit0 < 0 || jitTo < 0
            ? "CPU unknown (no /proc)"
            : String.format(
                Locale.ROOT,
                "compiler threads %d ms CPU (%.1f%%)",
                (jitTo - jit0) / 1_000_000,
                used <= 0 ? 0.0 : 100.0 * (jitTo - jit0) / used),
        used / 1_000_000);
    System.out.println(
        PROCESS_CPU.isNative()
            ? "process CPU: clock_gettime(CLOCK_PROCESS_CPUTIME_ID), ns, for the whole run"
            : "process CPU: the OperatingSystemMXBean's, 10 ms ticks on Linux, for the whole run");
    for (int i = 0; i < k; i++) {
      System.out.printf(
          Locale.ROOT,
          "%-10s CPU ns/serve: thread %s, process %s  B/serve %s",
          builds.get(i).name(),
          median(column(f[i], 0), "%.0f"),
          median(column(f[i], 2), "%.0f"),
          median(column(f[i], 1), "%.0f"));
      if (i > 0) {
        double[] cpu = new double[f[i].length];
        double[] process = new double[f[i].length];
        double[] bytes = new double[f[i].length];
        for (int r = 0; r < cpu.length; r++) {
          cpu[r] = f[i][r][0] / f[0][r][0];
          process[r] = f[i][r][2] / f[0][r][2];
          bytes[r] = f[i][r][1] / f[0][r][1];
        }
        System.out.printf(
            Locale.ROOT,
            "  /%s CPU: thread %s, process %s  bytes %s",
            builds.get(0).name(),
            median(cpu, "%.3f"),
            median(process, "%.3f"),
            median(bytes, "%.3f"));
      }
      System.out.println();
    }
  }

  /**
   * Readies, then runs, {@code n} of {@code b}'s serves; returns {this thread's CPU ns per serve,
   * this thread's bytes per serve, the process's CPU ns per serve}. The process's CPU is there
   * because the thread's alone would count work a build hands to another thread (a journal writer,
   * an executor) as saved; it also holds the JIT, the collector and, for {@code proxied}, the fake
   * upstream, so it is the noisier of the two.
   */
  static double[] time(Build b, int n) throws Exception {
    b.prepare().batch(n);
    Runnable serve = b.serve();
    long id = Thread.currentThread().threadId();
    long bytes0 = THREADS.getThreadAllocatedBytes(id);
    long process0 = processCpuNanos();
    long cpu0 = THREADS.getCurrentThreadCpuTime();
    for (int i = 0; i < n; i++) {
      serve.run();
    }
    long cpu = THREADS.getCurrentThreadCpuTime() - cpu0;
    long process = processCpuNanos() - process0;
    long bytes = THREADS.getThreadAllocatedBytes(id) - bytes0;
    return new double[] {(double) cpu / n, (double) bytes / n, (double) process / n};
  }

  /**
   * CPU time of this JVM's JIT compiler threads, in ns; -1 without {@code /proc}. Not the
   * compilation bean's total: that is elapsed time summed over the compiler threads, which on a
   * loaded machine (compilers waiting for a core) exceeds the CPU the whole process used.
   */
  static long compilerCpuNanos() {
    return HttpServeBenchmark.compilerCpuNanos(ProcessHandle.current().pid());
  }

  /**
   * CPU time of this whole JVM, in ns, threads that have ended included, from the one clock {@link
   * ProcessCpuClock} chose for the run (the process's CPU-time clock on Linux, else the bean's 10
   * ms ticks, never the two mixed).
   */
  static long processCpuNanos() {
    return PROCESS_CPU.nanos();
  }

  /** Chosen once, so every figure of the run is of one clock. */
  private static final ProcessCpuClock PROCESS_CPU = ProcessCpuClock.ofThisProcess();

  private static double[] column(double[][] rows, int c) {
    double[] v = new double[rows.length];
    for (int i = 0; i < v.length; i++) {
      v[i] = rows[i][c];
    }
    return v;
  }

  private static String median(double[] values, String form) {
    double[] v = values.clone();
    Arrays.sort(v);
    return String.format(
        Locale.ROOT,
        form + " [" + form + "–" + form + "] (" + form + "–" + form + ")",
        v[v.length / 2],
        v[v.length / 4],
        v[v.length * 3 / 4],
        v[0],
        v[v.length - 1]);
  }

  private static URL[] jars(Path dir) throws IOException {
    try (Stream<Path> s = Files.list(dir)) {
      return s.filter(p -> p.toString().endsWith(".jar"))
          .sorted()
          .map(
              p -> {
                try {
                  return p.toUri().toURL();
                } catch (MalformedURLException e) {
                  throw new IllegalArgumentException(p.toString(), e);
                }
              })
          .toArray(URL[]::new);
    }
  }

  /**
   * The fake upstream: {@link HttpServeBenchmark#UPSTREAM_REPLY} for any request. Its pool's
   * threads are named {@code fake-upstream-N}, which the JFR scripts leave out of the mesh side by
   * name: as {@code pool-1-thread-N}, one waiting for its next exchange had no frame of the JDK's
   * HTTP server on its stack, and 7 of 262 CPU samples of a recording counted as the serve's
   * (session 43).
   */
  static HttpServer fakeUpstream() throws IOException {
    HttpServer s = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 64);
    s.createContext(
        "/",
        ex -> {
          try (ex) {
            ex.getRequestBody().readAllBytes();
            ex.getResponseHeaders().set("Content-Type", "application/json");
            ex.sendResponseHeaders(200, HttpServeBenchmark.UPSTREAM_REPLY.length);
            ex.getResponseBody().write(HttpServeBenchmark.UPSTREAM_REPLY);
          }
        });
    s.setExecutor(
        Executors.newFixedThreadPool(2, Thread.ofPlatform().name("fake-upstream-", 0).factory()));
    s.start();
    return s;
  }
}
