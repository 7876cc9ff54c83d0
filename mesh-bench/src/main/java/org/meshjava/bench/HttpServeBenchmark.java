package org.meshjava.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.function.LongSupplier;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.ServingEngine;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.core.identity.DidKey;
import org.meshjava.energy.EstimatorMeter;
import org.meshjava.engine.ReferenceEngine;
import org.meshjava.jcp.GrantChain;
import org.meshjava.jcp.Jcp;
import org.meshjava.journal.FileJournal;
import org.meshjava.openai.GrantedServeRequest;
import org.meshjava.openai.OpenAiServer;
import org.meshjava.openai.UpstreamEngine;
import org.meshjava.steward.Steward;

/**
 * The HTTP serve path measured against the upstream it fronts, in one run (issue 17).
 *
 * <p>What runs, all in this JVM on loopback:
 *
 * <ul>
 *   <li>a fake OpenAI-compatible upstream: Jetty answering every {@code POST} with one fixed chat
 *       completion (no work at all, so it is the fastest upstream there can be);
 *   <li>{@code direct}: the load generator calling that upstream;
 *   <li>{@code proxied}: the load generator calling a steward behind {@link OpenAiServer} whose
 *       only backend is an {@link UpstreamEngine} forwarding to the fake upstream — what {@code
 *       mesh serve} runs with an {@code upstream} backend (estimator meter, in-memory journal,
 *       ungranted requests, a concurrency bound of 1024 so that nothing is refused with 429);
 *   <li>{@code reference}: the same steward and binding with a {@link ReferenceEngine} (16 units of
 *       work per token, as {@code mesh serve}'s default) and an in-memory journal;
 *   <li>{@code reference-file}: as {@code reference} with a {@link FileJournal} in a temporary
 *       directory;
 *   <li>{@code reference-file-granted}: as {@code reference-file}, every request granted: it
 *       carries a fresh {@code jcp_presentation} of a grant issued to the steward, signed by the
 *       client thread before the request's clock starts (in-process only);
 *   <li>{@code floor}, {@code floor-signed}: no steward at all, a bare proxy in front of the same
 *       upstream ({@link FloorProxy}: Jetty in, a blocking keep-alive socket out, a reply as long
 *       as a proxied serve's), without and with one Ed25519 signature per request: the floor a
 *       proxied serve stands on (in-process only); {@code floor-inline}, {@code
 *       floor-inline-signed}: the same run on Jetty's selector thread, with no hand-off to a pool
 *       thread (one request at a time: read their CPU figure, not their req/s); {@code
 *       floor-virtual}, {@code floor-virtual-signed}: the blocking handler run on a virtual thread
 *       per request (Jetty's pool given a virtual-thread executor), as {@code OpenAiServer} runs a
 *       serve when every backend is an upstream; {@code floor-pec}, {@code floor-pec-signed}: the
 *       pool with no reserved threads, so the selector queues each request to a pool thread
 *       (produce-execute-consume) instead of running it itself after waking a reserved thread to
 *       select in its place (execute-produce-consume, Jetty's default).
 * </ul>
 *
 * <p>With {@code --mesh LABEL=COMMAND} (repeatable) the mesh side runs instead as a real {@code
 * COMMAND serve} process (the launcher {@code ./mesh}, or another checkout's, see {@code
 * mesh-bench/http-compare.sh}) with a configuration file equivalent to the in-process scenario,
 * each label in turn for each scenario, and the figures are labelled {@code scenario@LABEL}; then
 * the later labels are also given as ratios to the first. Only the ungranted scenarios run so.
 * {@code --local-keys LABEL=MEMBERS} adds JSON members to the reference backend's entry of that
 * label's configuration only: a local engine under {@code mesh serve} runs one serve per core and
 * queues none by default, so a build that has that key needs {@code "max_waiting_serves": 1024} to
 * serve all of c=64 (as the in-process scenario's engine does), while an older build may not know
 * the key. Every answer that is not 200 is counted by status; the run ends with exit status 1 if
 * there was any, since such a run compares different work.
 *
 * <p>The load generator, the method: {@code c} threads, each with one keep-alive HTTP/1.1
 * connection over a plain socket, send the same pre-rendered request and read the whole response
 * (Content-Length framed) before sending the next: a closed loop, like {@code wrk}, so latencies
 * under overload are those of the requests that got through (no coordinated-omission correction).
 * Each scenario runs {@code warm-up} seconds unrecorded, then {@code measure} seconds; a request
 * counts when it started inside the measured window. Reported: requests/s, p50 and p99 latency,
 * non-200 answers, and two CPU figures per request, which move much less than req/s when other
 * processes load the machine: {@code CPU}, the whole benchmark process's (client, servers and
 * upstream together), and {@code mesh}, the mesh side's alone: with {@code --mesh}, the {@code mesh
 * serve} process's user+system time from {@code /proc/PID/stat}; in-process, the CPU time of every
 * thread but the load generator's and the fake upstream's (so without the JVM's GC and JIT threads,
 * which no thread count covers), and in-process also the kilobytes those threads allocated per
 * request, which load does not move at all. {@code JIT} is the share of the CPU of the process the
 * mesh side runs in (the benchmark's own, in-process) that its C1 and C2 compiler threads used in
 * the measured window, from {@code /proc/PID/task}: a fresh {@code mesh serve} on 2 loaded cores
 * compiles for tens of seconds (a third of its CPU at 10 s in, 1% at 30 s), and until it stops its
 * figures are warm-up; above 5% the run prints a {@code WARM-UP} line. Then each mesh figure as a
 * ratio to {@code direct} at the same concurrency. The client, servers and upstream share the
 * machine's cores, so the absolute figures are low on 2 cores; the ratios are the point.
 *
 * <p>Usage: {@code java -cp mesh-bench/target/benchmarks.jar org.meshjava.bench.HttpServeBenchmark
 * [warm-up s] [measure s] [--mesh LABEL=COMMAND ...] [--local-keys LABEL=MEMBERS ...] [scenario:c,c
 * ...]}; the default is {@code 2 4 direct:1,8,64 proxied:1,8,64 reference:64 reference-file:8
 * reference-file-granted:8}.
 */
public final class HttpServeBenchmark {
  static final byte[] UPSTREAM_REPLY =
      ("{\"id\":\"chatcmpl-bench\",\"object\":\"chat.completion\",\"created\":0,"
              + "\"model\":\"fake\",\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\","
              + "\"content\":\"Hello! How can I help you today?\"},\"finish_reason\":\"stop\"}],"
              + "\"usage\":{\"prompt_tokens\":9,\"completion_tokens\":9,\"total_tokens\":18}}")
          .getBytes(StandardCharsets.UTF_8);

  private static final String REQUEST_BODY =
      "{\"model\":\"auto\",\"messages\":[{\"role\":\"user\",\"content\":\"Say hello.\"}],"
          + "\"max_tokens\":16}";

  /**
   * Above this share of its process's CPU in the measured window, the JIT compilers are still
   * warming the mesh side up, and the run says so.
   */
  private static final double JIT_WARNING = 0.05;

  /**
   * Threads whose CPU time is not the mesh side's, in-process: by name prefix. The JVM's own JFR
   * recorder threads (a run recorded for jfr-serve-table.py) and Common-Cleaner are not, as in
   * jfr_mesh_side.py's NOT_MESH, so a recorded run's mesh figure is not raised by the recording.
   */
  private static final List<String> NOT_MESH =
      List.of("load-", "fake-upstream", "main", "JFR", "Common-Cleaner");

  private HttpServeBenchmark() {}

  /** One scenario's figures. */
  record Figures(
      String scenario,
      int concurrency,
      double perSecond,
      double p50Ms,
      double p99Ms,
      long errors,
      String notOk,
      long requests,
      double cpuMicrosPerRequest,
      double meshCpuMicrosPerRequest,
      double meshAllocKbPerRequest,
      double jitShare) {}

  /**
   * Where the mesh side runs: in this JVM, or as {@code COMMAND serve} processes; {@code localKeys}
   * are JSON members added to a local engine's backend entry in that build's configuration (empty:
   * none).
   */
  private record MeshCommand(String label, String command, String localKeys) {}

  private static final String USAGE =
      """
      usage: HttpServeBenchmark [warm-up s] [measure s] [--mesh LABEL=COMMAND ...]
                                [--local-keys LABEL=MEMBERS ...] [scenario:c,c ...]
        scenarios: direct proxied reference reference-file reference-file-granted
                   floor floor-signed floor-inline floor-inline-signed floor-virtual
                   floor-virtual-signed floor-pec floor-pec-signed (a bare proxy: see
                   FloorProxy)
        default:   2 4 direct:1,8,64 proxied:1,8,64 reference:64 reference-file:8
                   reference-file-granted:8
        see mesh-bench/README.md, section 'The HTTP serve path'
      """;

  private static double seconds(String arg) {
    try {
      return Double.parseDouble(arg);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "expected seconds, got " + arg + System.lineSeparator() + USAGE, e);
    }
  }

  /** Entry point. */
  public static void main(String[] args) throws Exception {
    if (args.length > 0 && (args[0].equals("--help") || args[0].equals("-h"))) {
      System.out.println(USAGE);
      return;
    }
    double warmUp = args.length > 0 ? seconds(args[0]) : 2;
    double measure = args.length > 1 ? seconds(args[1]) : 4;
    List<MeshCommand> meshes = new ArrayList<>();
    Map<String, String> localKeys = new java.util.HashMap<>();
    List<String> plan = new ArrayList<>();
    for (int i = 2; i < args.length; i++) {
      if ((args[i].equals("--mesh") || args[i].equals("--local-keys")) && i + 1 < args.length) {
        String option = args[i];
        String spec = args[++i];
        int eq = spec.indexOf('=');
        if (eq <= 0) {
          throw new IllegalArgumentException(option + " LABEL=..., got " + spec);
        }
        if (option.equals("--mesh")) {
          meshes.add(new MeshCommand(spec.substring(0, eq), spec.substring(eq + 1), ""));
        } else {
          localKeys.put(spec.substring(0, eq), spec.substring(eq + 1));
        }
      } else {
        plan.add(args[i]);
      }
    }
    meshes.replaceAll(
        m -> new MeshCommand(m.label(), m.command(), localKeys.getOrDefault(m.label(), "")));
    if (plan.isEmpty()) {
      plan =
          List.of(
              "direct:1,8,64",
              "proxied:1,8,64",
              "reference:64",
              "reference-file:8",
              "reference-file-granted:8");
    }
    System.out.printf(
        "HTTP serve benchmark: %d processors, warm-up %.0f s, measure %.0f s, mesh side %s,"
            + " load average before: %s%n",
        Runtime.getRuntime().availableProcessors(),
        warmUp,
        measure,
        meshes.isEmpty() ? "in this JVM" : meshes,
        loadAverage());
    Map<String, Figures> all = new LinkedHashMap<>();
    Server upstream = fakeUpstream();
    try {
      int upstreamPort = ((ServerConnector) upstream.getConnectors()[0]).getLocalPort();
      for (String item : plan) {
        String scenario = item.substring(0, item.indexOf(':'));
        for (String c : item.substring(item.indexOf(':') + 1).split(",")) {
          int concurrency = Integer.parseInt(c);
          List<Figures> figures = new ArrayList<>();
          if (scenario.equals("direct") || meshes.isEmpty()) {
            figures.add(run(scenario, concurrency, upstreamPort, warmUp, measure));
          } else {
            for (MeshCommand m : meshes) {
              figures.add(runProcess(m, scenario, concurrency, upstreamPort, warmUp, measure));
            }
          }
          for (Figures f : figures) {
            all.put(f.scenario() + ":" + concurrency, f);
            System.out.printf(
                "%-22s c=%-3d %9.0f req/s  p50 %7.3f ms  p99 %8.3f ms  CPU %6.1f µs/req"
                    + "  mesh %6.1f µs/req %s%s (%d requests, %d not 200%s)%n",
                f.scenario(),
                concurrency,
                f.perSecond(),
                f.p50Ms(),
                f.p99Ms(),
                f.cpuMicrosPerRequest(),
                f.meshCpuMicrosPerRequest(),
                f.meshAllocKbPerRequest() < 0
                    ? ""
                    : String.format(" %5.1f KB/req", f.meshAllocKbPerRequest()),
                f.jitShare() < 0 ? "" : String.format(" JIT %4.1f%%", 100 * f.jitShare()),
                f.requests(),
                f.errors(),
                f.notOk());
          }
        }
      }
    } finally {
      upstream.stop();
    }
    System.out.println();
    System.out.println("load average after: " + loadAverage());
    // A run whose servers refused or failed requests compares different work: say so, loudly.
    long notOk = all.values().stream().mapToLong(Figures::errors).sum();
    if (notOk == 0) {
      System.out.println("every request of every scenario was answered 200");
    } else {
      for (Figures f : all.values()) {
        if (f.errors() > 0) {
          System.out.printf(
              "NOT 200: %s c=%d: %d of %d requests%s%n",
              f.scenario(), f.concurrency(), f.errors(), f.requests(), f.notOk());
        }
      }
    }
    // A process still compiling is measured warming up, not serving (see compilerCpuNanos).
    for (Figures f : all.values()) {
      if (f.jitShare() > JIT_WARNING) {
        System.out.printf(
            "WARM-UP: %s c=%d: the JIT compilers used %.0f%% of the CPU of the process the mesh"
                + " side runs in; lengthen the warm-up for steady-state figures%n",
            f.scenario(), f.concurrency(), 100 * f.jitShare());
      }
    }
    for (Figures f : all.values()) {
      Figures direct = all.get("direct:" + f.concurrency());
      if (direct == null || f.scenario().equals("direct")) {
        continue;
      }
      System.out.printf(
          "%-22s c=%-3d vs direct: throughput %.3f, p50 %.2fx, p99 %.2fx,"
              + " CPU/req %.2fx (+%.0f µs)%n",
          f.scenario(),
          f.concurrency(),
          f.perSecond() / direct.perSecond(),
          f.p50Ms() / direct.p50Ms(),
          f.p99Ms() / direct.p99Ms(),
          f.cpuMicrosPerRequest() / direct.cpuMicrosPerRequest(),
          f.cpuMicrosPerRequest() - direct.cpuMicrosPerRequest());
    }
    // Later --mesh labels against the first, scenario by scenario.
    if (meshes.size() > 1) {
      String base = "@" + meshes.get(0).label();
      for (Figures f : all.values()) {
        int at = f.scenario().indexOf('@');
        if (at < 0 || f.scenario().endsWith(base)) {
          continue;
        }
        Figures b = all.get(f.scenario().substring(0, at) + base + ":" + f.concurrency());
        if (b != null) {
          System.out.printf(
              "%-22s c=%-3d vs %s: throughput %.2fx, p50 %.2fx, p99 %.2fx, mesh CPU/req %.2fx%n",
              f.scenario(),
              f.concurrency(),
              b.scenario(),
              f.perSecond() / b.perSecond(),
              f.p50Ms() / b.p50Ms(),
              f.p99Ms() / b.p99Ms(),
              f.meshCpuMicrosPerRequest() / b.meshCpuMicrosPerRequest());
        }
      }
    }
    for (Figures f : all.values()) {
      Figures direct = all.get("direct:" + f.concurrency());
      if (f.scenario().startsWith("proxied") && f.concurrency() == 64 && direct != null) {
        System.out.printf(
            "target: %s c=64 throughput >= 1/3 of direct: %.3f%n",
            f.scenario(), f.perSecond() / direct.perSecond());
      }
      if (f.scenario().startsWith("reference-file") && f.concurrency() == 8) {
        System.out.printf(
            "target: %s c=8 p99 <= 5x p50: %.2fx%n", f.scenario(), f.p99Ms() / f.p50Ms());
      }
    }
    if (notOk > 0) {
      System.exit(1);
    }
  }

  private static String loadAverage() {
    try {
      String[] parts = Files.readString(Path.of("/proc/loadavg")).trim().split(" ");
      return parts[0] + " " + parts[1] + " " + parts[2];
    } catch (IOException e) {
      return String.format(
          "%.2f",
          java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
    }
  }

  /** {@link #load} with the mesh side in this JVM: every thread but the client's and upstream's. */
  private static Figures loadInProcess(
      String scenario, int concurrency, int port, Requests requests, double warmUp, double measure)
      throws Exception {
    return load(
        scenario,
        concurrency,
        port,
        requests,
        warmUp,
        measure,
        inProcessMesh(false),
        inProcessMesh(true),
        ProcessHandle.current().pid());
  }

  private static Figures run(
      String scenario, int concurrency, int upstreamPort, double warmUp, double measure)
      throws Exception {
    if (scenario.equals("direct")) {
      return loadInProcess(
          scenario, concurrency, upstreamPort, fixed(upstreamPort), warmUp, measure);
    }
    if (scenario.startsWith("floor")) {
      Server floor =
          FloorProxy.start(
              upstreamPort,
              scenario.contains("signed"),
              scenario.startsWith("floor-inline"),
              scenario.startsWith("floor-virtual"),
              scenario.startsWith("floor-pec"));
      try {
        int port = ((ServerConnector) floor.getConnectors()[0]).getLocalPort();
        return loadInProcess(scenario, concurrency, port, fixed(port), warmUp, measure);
      } finally {
        floor.stop();
      }
    }
    ServingEngine engine;
    FileJournal journal = null;
    Path tmp = null;
    switch (scenario) {
      case "proxied" ->
          engine =
              UpstreamEngine.builder()
                  .name("upstream")
                  .baseUri(URI.create("http://127.0.0.1:" + upstreamPort + "/v1"))
                  .model("fake")
                  .timeout(Duration.ofSeconds(30))
                  .build();
      case "reference", "reference-file", "reference-file-granted" ->
          engine = ReferenceEngine.builder().name("reference").workPerToken(16).build();
      default -> throw new IllegalArgumentException("unknown scenario " + scenario);
    }
    Steward.Builder sb = Steward.ephemeral().backend(engine).meter(new EstimatorMeter());
    if (scenario.startsWith("reference-file")) {
      tmp = Files.createTempDirectory("mesh-http-bench");
      journal = FileJournal.open(tmp.resolve("journal"));
      sb.journal(journal);
    }
    try (Steward steward = sb.build();
        OpenAiServer server =
            OpenAiServer.builder(steward).maxConcurrentServes(1024).build().start()) {
      Requests requests =
          scenario.endsWith("-granted")
              ? granted(server.port(), steward.identity())
              : fixed(server.port());
      return loadInProcess(scenario, concurrency, server.port(), requests, warmUp, measure);
    } finally {
      delete(tmp);
    }
  }

  /**
   * Runs a scenario against {@code m.command() serve} in its own process, configured as the
   * in-process scenario is; the mesh CPU figure is that process's.
   */
  private static Figures runProcess(
      MeshCommand m,
      String scenario,
      int concurrency,
      int upstreamPort,
      double warmUp,
      double measure)
      throws Exception {
    Path tmp = Files.createTempDirectory("mesh-http-bench");
    String local = m.localKeys().isBlank() ? "" : ", " + m.localKeys();
    String backend =
        switch (scenario) {
          case "proxied" ->
              "{\"type\": \"upstream\", \"name\": \"upstream\", \"base_url\":"
                  + " \"http://127.0.0.1:"
                  + upstreamPort
                  + "/v1\", \"model\": \"fake\", \"timeout_s\": 30}";
          case "reference", "reference-file" ->
              "{\"type\": \"reference\", \"name\": \"reference\", \"work_per_token\": 16"
                  + local
                  + "}";
          default ->
              throw new IllegalArgumentException(
                  "scenario " + scenario + " does not run with --mesh");
        };
    String journal =
        scenario.equals("reference-file")
            ? "\"journal\": \"" + tmp.resolve("steward.journal") + "\", "
            : "";
    Path config = tmp.resolve("serve.json");
    Files.writeString(
        config,
        "{\"meter\": \"estimator\", \"max_concurrent_serves\": 1024, "
            + journal
            + "\"backends\": ["
            + backend
            + "]}");
    Path portFile = tmp.resolve("port");
    Process p =
        new ProcessBuilder(
                m.command(),
                "serve",
                "--config",
                config.toString(),
                "--port",
                "0",
                "--port-file",
                portFile.toString())
            .redirectErrorStream(true)
            .redirectOutput(tmp.resolve("serve.log").toFile())
            .start();
    try {
      long deadline = System.nanoTime() + 120_000_000_000L;
      while (!Files.exists(portFile) || Files.readString(portFile).isBlank()) {
        if (!p.isAlive() || System.nanoTime() > deadline) {
          throw new IOException(
              m.command() + " serve did not start: " + Files.readString(tmp.resolve("serve.log")));
        }
        Thread.sleep(50);
      }
      int port = Integer.parseInt(Files.readString(portFile).trim());
      long pid = p.pid();
      return load(
          scenario + "@" + m.label(),
          concurrency,
          port,
          fixed(port),
          warmUp,
          measure,
          () -> processCpuNanos(pid),
          () -> -1,
          pid);
    } finally {
      p.destroy();
      if (!p.waitFor(10, java.util.concurrent.TimeUnit.SECONDS)) {
        p.destroyForcibly();
      }
      delete(tmp);
    }
  }

  /** User plus system time of process {@code pid}, from {@code /proc/PID/stat}. */
  private static long processCpuNanos(long pid) {
    try {
      return cpuTicks(Files.readString(Path.of("/proc/" + pid + "/stat")))
          * 1_000_000_000L
          / CLOCK_TICKS;
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /**
   * User plus system time of process {@code pid}'s JIT compiler threads ({@code C1
   * CompilerThread…}, {@code C2 CompilerThread…}), from {@code /proc/PID/task}; -1 where there is
   * no {@code /proc}. A fresh JVM under this load compiles for tens of seconds: while it does, its
   * CPU figures are those of warm-up, not of serving. A thread that ends between the two readings
   * drops out of the second, which can only understate the share.
   */
  static long compilerCpuNanos(long pid) {
    Path tasks = Path.of("/proc/" + pid + "/task");
    if (!Files.isDirectory(tasks)) {
      return -1;
    }
    long ticks = 0;
    try (var list = Files.list(tasks)) {
      for (Path task : list.toList()) {
        String stat;
        try {
          stat = Files.readString(task.resolve("stat"));
        } catch (IOException gone) {
          continue; // the thread ended after the listing
        }
        String name = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
        if (name.startsWith("C1 Compiler") || name.startsWith("C2 Compiler")) {
          ticks += cpuTicks(stat);
        }
      }
    } catch (IOException e) {
      return -1;
    }
    return ticks * 1_000_000_000L / CLOCK_TICKS;
  }

  /** User plus system time, in clock ticks, of a process's or thread's {@code stat} line. */
  private static long cpuTicks(String stat) {
    // The command name (field 2) may hold spaces; fields after its ')' are plain.
    String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    return Long.parseLong(f[11]) + Long.parseLong(f[12]);
  }

  /** USER_HZ: 100 on every Linux that matters; the kernel's stat fields count in it. */
  private static final long CLOCK_TICKS = 100;

  /**
   * In-process: the CPU time (or with {@code allocated}, the bytes allocated) of every mesh-side
   * thread (not the load generator's or the upstream's) since the first call, the baseline.
   *
   * <p>Jetty's pool and the journal's I/O pool end idle threads and start new ones while a window
   * runs (four of the binding's threads ended and four began in 12 s of {@code
   * reference-file-granted:8}, session 46). A thread that began after the baseline counts from
   * zero, and one that ended keeps what the last call saw of it, so {@link #load} calls this every
   * {@link #POLL}; before, such threads counted nothing, and the figure fell by however much of the
   * window's work they had done.
   */
  static LongSupplier inProcessMesh(boolean allocated) {
    var threads =
        (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
    Map<Long, Long> first = new java.util.HashMap<>();
    Map<Long, Long> last = new java.util.HashMap<>();
    boolean[] baseline = {true};
    return () -> {
      for (var info : threads.getThreadInfo(threads.getAllThreadIds())) {
        if (info == null || NOT_MESH.stream().anyMatch(info.getThreadName()::startsWith)) {
          continue;
        }
        long used =
            allocated
                ? threads.getThreadAllocatedBytes(info.getThreadId())
                : threads.getThreadCpuTime(info.getThreadId());
        if (used < 0) {
          continue;
        }
        // At the baseline, what a thread had used before the window; a thread first seen after it
        // began in the window and counts from zero.
        first.putIfAbsent(info.getThreadId(), baseline[0] ? used : 0);
        last.put(info.getThreadId(), used);
      }
      baseline[0] = false;
      long total = 0;
      for (var e : last.entrySet()) {
        total += e.getValue() - first.get(e.getKey());
      }
      return total;
    };
  }

  /** How often {@link #load} reads an in-process figure while its window runs. */
  static final Duration POLL = Duration.ofMillis(100);

  private static void delete(Path tmp) throws IOException {
    if (tmp != null) {
      try (var files = Files.walk(tmp)) {
        files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }

  /** The request bytes each client sends; {@link #next()} is called on that client's thread. */
  @FunctionalInterface
  interface Requests {
    /** The next request to send, whole. */
    byte[] next() throws Exception;
  }

  /** The same ungranted chat request every time. */
  static Requests fixed(int port) {
    byte[] request = http(port, REQUEST_BODY);
    return () -> request;
  }

  /**
   * Granted chat requests: a root grant to the steward with a budget that cannot run out, and a
   * fresh presentation (own nonce) for every request, signed when it is asked for.
   */
  static Requests granted(int port, DidKey steward) throws Exception {
    SigningKey caller = Jcp.newKey();
    Instant now = Instant.now();
    GrantChain chain =
        Jcp.issueRoot(
            caller, steward, Long.MAX_VALUE / 4, now.minusSeconds(60), now.plusSeconds(86_400));
    ObjectMapper json = new ObjectMapper();
    ObjectNode body = (ObjectNode) json.readTree(REQUEST_BODY);
    body.putObject("metadata").put("joule_ceiling_uj", "1000000");
    ServeRequest request = GrantedServeRequest.derive(body);
    return () -> {
      ObjectNode b = body.deepCopy();
      b.put("jcp_presentation", Jcp.present(caller, chain, request).toHex());
      return http(port, json.writeValueAsString(b));
    };
  }

  private static byte[] http(int port, String body) {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    return ("POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1:"
            + port
            + "\r\nContent-Type: application/json\r\nContent-Length: "
            + bytes.length
            + "\r\n\r\n"
            + body)
        .getBytes(StandardCharsets.UTF_8);
  }

  /**
   * A Jetty server on an ephemeral loopback port, its pool of up to {@code maxThreads} named {@code
   * name} (the in-process CPU figures tell the sides apart by thread name); not yet started.
   */
  static Server loopbackServer(String name, int maxThreads) {
    QueuedThreadPool threads = new QueuedThreadPool(maxThreads);
    threads.setName(name);
    Server server = new Server(threads);
    ServerConnector connector = new ServerConnector(server);
    connector.setHost("127.0.0.1");
    connector.setPort(0);
    server.addConnector(connector);
    return server;
  }

  /** The fake upstream: a fixed chat completion for any request, after reading its body. */
  static Server fakeUpstream() throws Exception {
    Server server = loopbackServer("fake-upstream", 200);
    server.setHandler(
        new Handler.Abstract.NonBlocking() {
          @Override
          public boolean handle(Request request, Response response, Callback callback) {
            Content.Source.consumeAll(
                request,
                Callback.from(
                    () -> {
                      response.setStatus(200);
                      response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
                      response.getHeaders().put(HttpHeader.CONTENT_LENGTH, UPSTREAM_REPLY.length);
                      response.write(true, ByteBuffer.wrap(UPSTREAM_REPLY), callback);
                    },
                    callback::failed));
            return true;
          }
        });
    server.start();
    return server;
  }

  /** Runs the closed-loop load generator against {@code port}; see the class comment. */
  static Figures load(
      String scenario,
      int concurrency,
      int port,
      Requests request,
      double warmUp,
      double measure,
      LongSupplier meshCpu,
      LongSupplier meshAlloc,
      long meshPid)
      throws Exception {
    long start = System.nanoTime();
    long from = start + (long) (warmUp * 1e9);
    long until = from + (long) (measure * 1e9);
    Client[] clients = new Client[concurrency];
    CountDownLatch done = new CountDownLatch(concurrency);
    for (int i = 0; i < concurrency; i++) {
      clients[i] = new Client(port, request, from, until, done);
      Thread t = new Thread(clients[i], "load-" + i);
      t.setDaemon(true);
      t.start();
    }
    // The process's CPU time over the measured window, per request: client, binding, steward and
    // upstream together. Unlike req/s it barely moves when other processes load the machine.
    var os =
        (com.sun.management.OperatingSystemMXBean)
            java.lang.management.ManagementFactory.getOperatingSystemMXBean();
    while (System.nanoTime() < from) {
      Thread.sleep(Math.max(1, (from - System.nanoTime()) / 1_000_000));
    }
    long cpuFrom = os.getProcessCpuTime();
    long meshFrom = meshCpu.getAsLong();
    long allocFrom = meshAlloc.getAsLong();
    long jitFrom = compilerCpuNanos(meshPid);
    long hostFrom = jitFrom < 0 ? -1 : processCpuNanos(meshPid);
    while (System.nanoTime() < until) {
      Thread.sleep(Math.max(1, Math.min(POLL.toMillis(), (until - System.nanoTime()) / 1_000_000)));
      // In-process, so that a thread ending in the window keeps what it used (inProcessMesh).
      if (meshPid == ProcessHandle.current().pid()) {
        meshCpu.getAsLong();
        meshAlloc.getAsLong();
      }
    }
    long cpuUsed = os.getProcessCpuTime() - cpuFrom;
    long meshUsed = meshCpu.getAsLong() - meshFrom;
    long allocated = allocFrom < 0 ? -1 : meshAlloc.getAsLong() - allocFrom;
    long jitTo = jitFrom < 0 ? -1 : compilerCpuNanos(meshPid);
    long hostUsed = jitTo < 0 ? -1 : processCpuNanos(meshPid) - hostFrom;
    double jitShare =
        jitFrom < 0 || jitTo < 0 || hostUsed <= 0 ? -1 : (jitTo - jitFrom) / (double) hostUsed;
    done.await();
    long errors = 0;
    int n = 0;
    Map<Integer, Long> statuses = new java.util.TreeMap<>();
    for (Client c : clients) {
      if (c.failure != null) {
        throw new IOException(scenario + " c=" + concurrency + ": a client failed", c.failure);
      }
      errors += c.errors;
      n += c.count;
      c.notOk.forEach((status, count) -> statuses.merge(status, count, Long::sum));
    }
    StringBuilder notOk = new StringBuilder();
    statuses.forEach(
        (status, count) -> notOk.append(": ").append(count).append("× ").append(status));
    long[] latencies = new long[n];
    int at = 0;
    for (Client c : clients) {
      System.arraycopy(c.latencies, 0, latencies, at, c.count);
      at += c.count;
    }
    Arrays.sort(latencies);
    double p50 = n == 0 ? 0 : latencies[(int) (0.50 * (n - 1))] / 1e6;
    double p99 = n == 0 ? 0 : latencies[(int) (0.99 * (n - 1))] / 1e6;
    return new Figures(
        scenario,
        concurrency,
        n / measure,
        p50,
        p99,
        errors,
        notOk.toString(),
        n,
        n == 0 ? 0 : cpuUsed / 1e3 / n,
        n == 0 ? 0 : meshUsed / 1e3 / n,
        n == 0 || allocated < 0 ? -1 : allocated / 1024.0 / n,
        jitShare);
  }

  /** One connection in the closed loop. */
  static final class Client implements Runnable {
    private final int port;
    private final Requests request;
    private final long from;
    private final long until;
    private final CountDownLatch done;
    long[] latencies = new long[1 << 14];
    int count;
    long errors;
    final Map<Integer, Long> notOk = new java.util.HashMap<>();
    Exception failure;

    Client(int port, Requests request, long from, long until, CountDownLatch done) {
      this.port = port;
      this.request = request;
      this.from = from;
      this.until = until;
      this.done = done;
    }

    @Override
    public void run() {
      byte[] buf = new byte[1 << 16];
      try (Socket s = new Socket()) {
        s.setTcpNoDelay(true);
        s.connect(new InetSocketAddress("127.0.0.1", port));
        OutputStream out = s.getOutputStream();
        InputStream in = s.getInputStream();
        while (true) {
          byte[] next = request.next();
          long t0 = System.nanoTime();
          if (t0 >= until) {
            break;
          }
          out.write(next);
          int status = readResponse(in, buf);
          long t1 = System.nanoTime();
          if (t0 >= from) {
            if (count == latencies.length) {
              latencies = Arrays.copyOf(latencies, count * 2);
            }
            latencies[count++] = t1 - t0;
            if (status != 200) {
              errors++;
              notOk.merge(status, 1L, Long::sum);
            }
          }
        }
      } catch (Exception e) {
        failure = e;
      } finally {
        done.countDown();
      }
    }

    /** Reads one Content-Length framed response; returns its status. */
    static int readResponse(InputStream in, byte[] buf) throws IOException {
      int len = 0;
      int headerEnd = -1;
      while (headerEnd < 0) {
        int r = in.read(buf, len, buf.length - len);
        if (r < 0) {
          throw new IOException("connection closed mid-response");
        }
        len += r;
        headerEnd = indexOfBlankLine(buf, len);
      }
      String head = new String(buf, 0, headerEnd + 2, StandardCharsets.ISO_8859_1);
      int status = Integer.parseInt(head.substring(9, 12));
      int cl = head.toLowerCase(java.util.Locale.ROOT).indexOf("content-length:");
      if (cl < 0) {
        throw new IOException("no Content-Length in " + head);
      }
      int eol = head.indexOf('\r', cl);
      int contentLength = Integer.parseInt(head.substring(cl + 15, eol).trim());
      long remaining = (long) headerEnd + 4 + contentLength - len;
      while (remaining > 0) {
        int r = in.read(buf, 0, (int) Math.min(buf.length, remaining));
        if (r < 0) {
          throw new IOException("connection closed mid-body");
        }
        remaining -= r;
      }
      return status;
    }

    private static int indexOfBlankLine(byte[] b, int len) {
      for (int i = 3; i < len; i++) {
        if (b[i] == '\n' && b[i - 1] == '\r' && b[i - 2] == '\n' && b[i - 3] == '\r') {
          return i - 3;
        }
      }
      return -1;
    }
  }
}
