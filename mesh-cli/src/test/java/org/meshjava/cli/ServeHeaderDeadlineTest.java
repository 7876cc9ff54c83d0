package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.meshjava.cli.MeshCommandTest.mesh;

import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code "header_deadline_s"} reaches the server {@code mesh serve} runs: a request whose headers
 * stop half-way is closed at that deadline, well inside the idle timeout (30 s).
 */
class ServeHeaderDeadlineTest {
  @TempDir Path tmp;

  @Test
  void headerDeadline_fromTheConfig_closesAHalfSentHead() throws Exception {
    Path config = tmp.resolve("mesh.json");
    Files.writeString(config, "{\"port\": 0, \"meter\": \"estimator\", \"header_deadline_s\": 1}");
    Path portFile = tmp.resolve("port");
    AtomicReference<MeshCommandTest.Run> served = new AtomicReference<>();
    Thread server =
        new Thread(
            () ->
                served.set(
                    mesh(
                        "serve",
                        "--config",
                        config.toString(),
                        "--port-file",
                        portFile.toString())));
    server.start();
    try {
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (!Files.exists(portFile) || Files.readString(portFile).isBlank()) {
        assertThat(System.nanoTime())
            .as("server did not start: %s", served.get())
            .isLessThan(deadline);
        Thread.sleep(20);
      }
      int port = Integer.parseInt(Files.readString(portFile).strip());
      try (Socket s = new Socket()) {
        s.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
        s.setSoTimeout(10_000);
        s.getOutputStream()
            .write(
                "POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                    .getBytes(StandardCharsets.US_ASCII));
        s.getOutputStream().flush();
        long start = System.nanoTime();
        assertThat(s.getInputStream().read()).as("closed without a reply").isEqualTo(-1);
        assertThat((System.nanoTime() - start) / 1_000_000).isBetween(900L, 4_000L);
      }
    } finally {
      server.interrupt();
      server.join(10_000);
    }
    assertThat(served.get().code()).as(served.get().err()).isZero();
  }
}
