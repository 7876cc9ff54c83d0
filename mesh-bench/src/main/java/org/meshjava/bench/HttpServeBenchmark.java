package org.meshjava.bench;

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
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.meshjava.core.ServingEngine;
import org.meshjava.energy.EstimatorMeter;
import org.meshjava.engine.ReferenceEngine;
import org.meshjava.journal.FileJournal;
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
 *       directory.
 * </ul>
 *
 * <p>The load generator, the method: {@code c} threads, each with one keep-alive HTTP/1.1
 * connection over a plain socket, send the same pre-rendered request and read the whole response
 * (Content-Length framed) before sending the next: a closed loop, like {@code wrk}, so latencies
 * under overload are those of the requests that got through (no coordinated-omission
 * correction). Each scenario runs {@code warm-up} seconds unrecorded, then {@code measure}
 * seconds; a request counts when it started inside the measured window. Reported: requests/s,
 * p50 and p99 latency, the process's CPU time per request (client, servers and upstream together:
 * the figure that moves least when other processes load the machine) and non-200 answers; then
 * each mesh figure as a ratio to {@code direct} at the same concurrency. The client, servers and upstream share the machine's cores, so the
 * absolute figures are low on 2 cores; the ratios are the point.
 *
 * <p>Usage: {@code java -cp mesh-bench/target/benchmarks.jar org.meshjava.bench.HttpServeBenchmark
 * [warm-up s] [measure s] [scenario:c,c ...]}; the default is {@code 2 4 direct:1,8,64
 * proxied:1,8,64 reference:64 reference-file:8}.
 */
public final class HttpServeBenchmark {
  private static final byte[] UPSTREAM_REPLY =
      ("{\"id\":\"chatcmpl-bench\",\"object\":\"chat.completion\",\"created\":0,"
              + "\"model\":\"fake\",\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\","
              + "\"content\":\"Hello! How can I help you today?\"},\"finish_reason\":\"stop\"}],"
              + "\"usage\":{\"prompt_tokens\":9,\"completion_tokens\":9,\"total_tokens\":18}}")
          .getBytes(StandardCharsets.UTF_8);

  private static final String REQUEST_BODY =
      "{\"model\":\"auto\",\"messages\":[{\"role\":\"user\",\"content\":\"Say hello.\"}],"
          + "\"max_tokens\":16}";

  private HttpServeBenchmark() {}

  /** One scenario's figures. */
  record Figures(String scenario, int concurrency, double perSecond, double p50Ms, double p99Ms,
      long errors, long requests, double cpuMicrosPerRequest) {}

  /** Entry point. */
  public static void main(String[] args) throws Exception {
    double warmUp = args.length > 0 ? Double.parseDouble(args[0]) : 2;
    double measure = args.length > 1 ? Double.parseDouble(args[1]) : 4;
    List<String> plan =
        args.length > 2
            ? List.of(Arrays.copyOfRange(args, 2, args.length))
            : List.of("direct:1,8,64", "proxied:1,8,64", "reference:64", "reference-file:8");
    System.out.printf("HTTP serve benchmark: %d processors, warm-up %.0f s, measure %.0f s%n",
        Runtime.getRuntime().availableProcessors(), warmUp, measure);
    Map<String, Figures> all = new LinkedHashMap<>();
    Server upstream = fakeUpstream();
    try {
      int upstreamPort = ((ServerConnector) upstream.getConnectors()[0]).getLocalPort();
      for (String item : plan) {
        String scenario = item.substring(0, item.indexOf(':'));
        for (String c : item.substring(item.indexOf(':') + 1).split(",")) {
          int concurrency = Integer.parseInt(c);
          Figures f = run(scenario, concurrency, upstreamPort, warmUp, measure);
          all.put(scenario + ":" + concurrency, f);
          System.out.printf("%-15s c=%-3d %9.0f req/s  p50 %7.3f ms  p99 %8.3f ms  CPU %6.1f µs/req"
                  + "  (%d requests, %d not 200)%n",
              scenario, concurrency, f.perSecond(), f.p50Ms(), f.p99Ms(),
              f.cpuMicrosPerRequest(), f.requests(), f.errors());
        }
      }
    } finally {
      upstream.stop();
    }
    System.out.println();
    for (Figures f : all.values()) {
      Figures direct = all.get("direct:" + f.concurrency());
      if (direct == null || f.scenario().equals("direct")) {
        continue;
      }
      System.out.printf("%-15s c=%-3d vs direct: throughput %.3f, p50 %.2fx, p99 %.2fx,"
              + " CPU/req %.2fx (+%.0f µs)%n",
          f.scenario(), f.concurrency(), f.perSecond() / direct.perSecond(),
          f.p50Ms() / direct.p50Ms(), f.p99Ms() / direct.p99Ms(),
          f.cpuMicrosPerRequest() / direct.cpuMicrosPerRequest(),
          f.cpuMicrosPerRequest() - direct.cpuMicrosPerRequest());
    }
    Figures proxied64 = all.get("proxied:64");
    Figures direct64 = all.get("direct:64");
    if (proxied64 != null && direct64 != null) {
      System.out.printf("target: proxied c=64 throughput >= 1/3 of direct: %.3f%n",
          proxied64.perSecond() / direct64.perSecond());
    }
    Figures file8 = all.get("reference-file:8");
    if (file8 != null) {
      System.out.printf("target: file journal c=8 p99 <= 5x p50: %.2fx%n",
          file8.p99Ms() / file8.p50Ms());
    }
  }

  private static Figures run(String scenario, int concurrency, int upstreamPort, double warmUp,
      double measure) throws Exception {
    if (scenario.equals("direct")) {
      return load(scenario, concurrency, upstreamPort, "/v1/chat/completions", warmUp, measure);
    }
    ServingEngine engine;
    FileJournal journal = null;
    Path tmp = null;
    switch (scenario) {
      case "proxied" -> engine = UpstreamEngine.builder()
          .name("upstream")
          .baseUri(URI.create("http://127.0.0.1:" + upstreamPort + "/v1"))
          .model("fake")
          .timeout(Duration.ofSeconds(30))
          .build();
      case "reference", "reference-file" -> engine = ReferenceEngine.builder().name("reference")
          .workPerToken(16).build();
      default -> throw new IllegalArgumentException("unknown scenario " + scenario);
    }
    Steward.Builder sb = Steward.ephemeral().backend(engine)
        .meter(new EstimatorMeter());
    if (scenario.equals("reference-file")) {
      tmp = Files.createTempDirectory("mesh-http-bench");
      journal = FileJournal.open(tmp.resolve("journal"));
      sb.journal(journal);
    }
    try (Steward steward = sb.build();
        OpenAiServer server =
            OpenAiServer.builder(steward).maxConcurrentServes(1024).build().start()) {
      return load(scenario, concurrency, server.port(), "/v1/chat/completions", warmUp, measure);
    } finally {
      if (tmp != null) {
        try (var files = Files.walk(tmp)) {
          files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
      }
    }
  }

  /** The fake upstream: a fixed chat completion for any request, after reading its body. */
  static Server fakeUpstream() throws Exception {
    QueuedThreadPool threads = new QueuedThreadPool(200);
    threads.setName("fake-upstream");
    Server server = new Server(threads);
    ServerConnector connector = new ServerConnector(server);
    connector.setHost("127.0.0.1");
    connector.setPort(0);
    server.addConnector(connector);
    server.setHandler(new Handler.Abstract.NonBlocking() {
      @Override
      public boolean handle(Request request, Response response, Callback callback) {
        Content.Source.consumeAll(request, Callback.from(() -> {
          response.setStatus(200);
          response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
          response.getHeaders().put(HttpHeader.CONTENT_LENGTH, UPSTREAM_REPLY.length);
          response.write(true, ByteBuffer.wrap(UPSTREAM_REPLY), callback);
        }, callback::failed));
        return true;
      }
    });
    server.start();
    return server;
  }

  /** Runs the closed-loop load generator against {@code port}; see the class comment. */
  static Figures load(String scenario, int concurrency, int port, String path, double warmUp,
      double measure) throws Exception {
    byte[] body = REQUEST_BODY.getBytes(StandardCharsets.UTF_8);
    byte[] request = ("POST " + path + " HTTP/1.1\r\nHost: 127.0.0.1:" + port
        + "\r\nContent-Type: application/json\r\nContent-Length: " + body.length + "\r\n\r\n"
        + REQUEST_BODY).getBytes(StandardCharsets.UTF_8);
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
    var os = (com.sun.management.OperatingSystemMXBean)
        java.lang.management.ManagementFactory.getOperatingSystemMXBean();
    while (System.nanoTime() < from) {
      Thread.sleep(Math.max(1, (from - System.nanoTime()) / 1_000_000));
    }
    long cpuFrom = os.getProcessCpuTime();
    while (System.nanoTime() < until) {
      Thread.sleep(Math.max(1, (until - System.nanoTime()) / 1_000_000));
    }
    long cpuUsed = os.getProcessCpuTime() - cpuFrom;
    done.await();
    long errors = 0;
    int n = 0;
    for (Client c : clients) {
      if (c.failure != null) {
        throw new IOException(scenario + " c=" + concurrency + ": a client failed", c.failure);
      }
      errors += c.errors;
      n += c.count;
    }
    long[] latencies = new long[n];
    int at = 0;
    for (Client c : clients) {
      System.arraycopy(c.latencies, 0, latencies, at, c.count);
      at += c.count;
    }
    Arrays.sort(latencies);
    double p50 = n == 0 ? 0 : latencies[(int) (0.50 * (n - 1))] / 1e6;
    double p99 = n == 0 ? 0 : latencies[(int) (0.99 * (n - 1))] / 1e6;
    return new Figures(scenario, concurrency, n / measure, p50, p99, errors, n,
        n == 0 ? 0 : cpuUsed / 1e3 / n);
  }

  /** One connection in the closed loop. */
  private static final class Client implements Runnable {
    private final int port;
    private final byte[] request;
    private final long from;
    private final long until;
    private final CountDownLatch done;
    long[] latencies = new long[1 << 14];
    int count;
    long errors;
    Exception failure;

    Client(int port, byte[] request, long from, long until, CountDownLatch done) {
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
          long t0 = System.nanoTime();
          if (t0 >= until) {
            break;
          }
          out.write(request);
          int status = readResponse(in, buf);
          long t1 = System.nanoTime();
          if (t0 >= from) {
            if (count == latencies.length) {
              latencies = Arrays.copyOf(latencies, count * 2);
            }
            latencies[count++] = t1 - t0;
            if (status != 200) {
              errors++;
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
    private static int readResponse(InputStream in, byte[] buf) throws IOException {
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
