package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.meshjava.cli.MeshCommandTest.mesh;

import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.cli.MeshCommandTest.Run;

/** {@code mesh serve --console}: off by default, on a loopback listener of its own when asked. */
class ServeConsoleTest {
  @TempDir Path tmp;

  private final HttpClient http = HttpClient.newHttpClient();

  @Test
  void help_listsTheConsoleFlags() {
    Run r = mesh("serve", "--help");
    assertThat(r.code()).isZero();
    assertThat(r.out())
        .contains("--console ")
        .contains("--console-host")
        .contains("--console-port");
  }

  @Test
  void consoleOptions_withoutConsole_areRefused() {
    Run r = mesh("serve", "--console-port", "0", "--meter", "estimator", "--port", "0");
    assertThat(r.code()).isNotZero();
    assertThat(r.err()).contains("add --console");
  }

  @Test
  void serve_withoutConsole_servesNoConsole() throws Exception {
    Run r =
        serve(
            List.of(),
            api -> {
              HttpResponse<String> page = get(api.resolve("/console"));
              assertThat(page.statusCode()).isEqualTo(404);
            });
    assertThat(r.out()).doesNotContain("console on");
  }

  @Test
  void serve_withConsole_servesThePageOnItsOwnLoopbackPort() throws Exception {
    int port;
    try (ServerSocket free = new ServerSocket(0)) {
      port = free.getLocalPort();
    }
    URI console = URI.create("http://127.0.0.1:" + port);
    Run r =
        serve(
            List.of("--console", "--console-port", Integer.toString(port)),
            api -> {
              HttpResponse<String> page = get(console.resolve("/console"));
              assertThat(page.statusCode()).isEqualTo(200);
              assertThat(page.body()).contains("mesh steward");
              assertThat(get(console.resolve("/v1/mesh/status")).body()).contains("next_sequence");
              assertThat(get(api.resolve("/console")).statusCode()).isEqualTo(404);
            });
    assertThat(r.out()).contains("console on http://127.0.0.1:" + port + "/console (read-only)");
  }

  private interface Check {
    void check(URI api) throws Exception;
  }

  private HttpResponse<String> get(URI uri) throws Exception {
    return http.send(
        HttpRequest.newBuilder(uri).GET().build(), HttpResponse.BodyHandlers.ofString());
  }

  /** Runs {@code mesh serve} with {@code extra} flags, checks it, stops it, returns its output. */
  private Run serve(List<String> extra, Check check) throws Exception {
    Path portFile = tmp.resolve("port-" + System.nanoTime());
    Path config = tmp.resolve("mesh.json");
    // One small reference backend: starts at once (the embedded defaults load MiniLM).
    Files.writeString(
        config,
        """
        {"backends": [{"type": "reference", "name": "small", "fidelity": "F1",
                       "work_per_token": 1}]}""");
    List<String> args =
        new ArrayList<>(
            List.of(
                "serve",
                "--config",
                config.toString(),
                "--meter",
                "estimator",
                "--port",
                "0",
                "--port-file",
                portFile.toString()));
    args.addAll(extra);
    AtomicReference<Run> run = new AtomicReference<>();
    Thread t = new Thread(() -> run.set(mesh(args.toArray(String[]::new))));
    t.start();
    try {
      long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      while (!Files.exists(portFile) || Files.readString(portFile).isBlank()) {
        assertThat(run.get()).as("server stopped: %s", run.get()).isNull();
        assertThat(System.nanoTime()).as("server did not start").isLessThan(deadline);
        Thread.sleep(20);
      }
      check.check(URI.create("http://127.0.0.1:" + Files.readString(portFile).strip()));
    } finally {
      t.interrupt();
      t.join(10_000);
    }
    Run r = run.get();
    assertThat(r).as("server did not stop").isNotNull();
    assertThat(r.code()).as(r.err()).isZero();
    return r;
  }
}
