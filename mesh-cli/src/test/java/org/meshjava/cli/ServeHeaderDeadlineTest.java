package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
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
    Files.writeString(
        config,
        "{\"port\": 0, \"meter\": \"estimator\", \"default_decision_engine\": false, \"header_deadline_s\": 1}");
    InProcessServe serve = InProcessServe.start(tmp.resolve("port"), "--config", config.toString());
    try (serve) {
      int port = serve.port();
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
    }
    assertThat(serve.run().code()).as(serve.run().err()).isZero();
  }
}
