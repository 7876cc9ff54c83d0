package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The listener's bounds that {@code mesh serve} had no key for: {@code "max_connections"} and
 * {@code "max_buffered_body_bytes"} are read from the configuration and reach the server, as do the
 * refused body's drain bounds ({@code "refused_body_drain_bytes"}, {@code "refused_body_drain_s"};
 * their reading is {@link ServeRefusedBodyDrainConfigTest}'s), checked on the same server: a full
 * serve takes seconds to start on a loaded machine.
 */
class ServeBodyBudgetConfigTest {
  @TempDir Path tmp;

  private Path config(String json) throws Exception {
    Path c = tmp.resolve("mesh.json");
    Files.writeString(c, json);
    return c;
  }

  private static Socket open(int port) throws Exception {
    Socket s = new Socket();
    s.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
    s.setSoTimeout(10_000);
    return s;
  }

  private static byte[] head(int length) {
    return ("POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            + "Content-Type: application/json\r\nContent-Length: "
            + length
            + "\r\n\r\n")
        .getBytes(StandardCharsets.US_ASCII);
  }

  @Test
  void bothKeys_areRead_andOutOfRangeValuesAreRefusedByName() throws Exception {
    ServeConfig c =
        ServeConfig.read(config("{\"max_connections\": 300, \"max_buffered_body_bytes\": 5000}"));
    assertThat(c.maxConnections()).contains(300L);
    assertThat(c.maxBufferedBodyBytes()).contains(5000L);
    assertThat(ServeConfig.empty().maxConnections()).isEmpty();
    for (String bad :
        new String[] {
          "{\"port\": 0, \"max_connections\": 0}",
          "{\"port\": 0, \"max_connections\": 3000000000}",
          "{\"port\": 0, \"max_buffered_body_bytes\": 0}"
        }) {
      MeshCommandTest.Run run = MeshCommandTest.mesh("serve", "--config", config(bad).toString());
      assertThat(run.code()).as(bad).isEqualTo(1);
      assertThat(run.err()).as(bad).contains("in a configuration must be from 1 to");
    }
  }

  @Test
  void theBodyBounds_fromTheConfig_reachTheServer() throws Exception {
    Path c =
        config(
            "{\"port\": 0, \"meter\": \"estimator\", \"default_decision_engine\": false, \"max_body_bytes\": 1000,"
                + " \"max_buffered_body_bytes\": 2000,"
                + " \"refused_body_drain_bytes\": 67108864, \"refused_body_drain_s\": 30}");
    InProcessServe serve = InProcessServe.start(tmp.resolve("port"), "--config", c.toString());
    try (serve;
        Socket stalled = open(serve.port());
        Socket next = open(serve.port())) {
      // 900 bytes of a 1,000-byte body, counted twice: 1,800 of the 2,000.
      OutputStream held = stalled.getOutputStream();
      held.write(head(1000));
      held.write(new byte[900]);
      held.flush();
      Thread.sleep(1_000);
      // 500 bytes more, counted twice, do not fit in what is left.
      byte[] body =
          ("{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}" + " ".repeat(455))
              .getBytes(StandardCharsets.UTF_8);
      OutputStream out = next.getOutputStream();
      out.write(head(body.length));
      out.write(body);
      out.flush();
      InputStream in = next.getInputStream();
      byte[] got = new byte[4096];
      int n = in.read(got);
      String answer = new String(got, 0, Math.max(n, 0), StandardCharsets.UTF_8);
      assertThat(answer).startsWith("HTTP/1.1 429");
      wholeBodyWriterReadsIts413(serve.port());
    }
  }

  /**
   * A 24 MiB body written whole before the answer is read: past the default drain byte bound (8
   * MiB) the connection would be cut and the write fail; within the configured 64 MiB the 413 is
   * read.
   */
  private static void wholeBodyWriterReadsIts413(int port) throws Exception {
    int length = 24 << 20;
    try (Socket s = open(port)) {
      OutputStream out = s.getOutputStream();
      out.write(head(length));
      out.write(new byte[length]);
      out.flush();
      byte[] got = s.getInputStream().readNBytes(12);
      assertThat(new String(got, StandardCharsets.US_ASCII)).isEqualTo("HTTP/1.1 413");
    }
  }
}
