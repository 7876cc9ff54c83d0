package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code "refused_body_drain_bytes"} and {@code "refused_body_drain_s"}, the bounds within which a
 * body refused 413 is read and discarded before its connection closes (SPEC.md 70), are read from
 * the configuration, refused by name out of range, and reach the server.
 */
class ServeRefusedBodyDrainConfigTest {
  @TempDir Path tmp;

  private Path config(String json) throws Exception {
    Path c = tmp.resolve("mesh.json");
    Files.writeString(c, json);
    return c;
  }

  @Test
  void bothKeys_areRead_andOutOfRangeValuesAreRefusedByName() throws Exception {
    ServeConfig c =
        ServeConfig.read(config("{\"refused_body_drain_bytes\": 0, \"refused_body_drain_s\": 7}"));
    assertThat(c.refusedBodyDrainBytes()).contains(0L);
    assertThat(c.refusedBodyDrainSeconds()).contains(7L);
    assertThat(ServeConfig.empty().refusedBodyDrainBytes()).isEmpty();
    // Read alone, without starting a serve: each refusal is the configuration reader's.
    for (String[] bad :
        new String[][] {
          {"{\"refused_body_drain_bytes\": -1}", "refused_body_drain_bytes must be a non-negative"},
          {"{\"refused_body_drain_s\": 0}", "refused_body_drain_s must be from 1"}
        }) {
      Path file = config(bad[0]);
      assertThatThrownBy(() -> ServeConfig.read(file))
          .as(bad[0])
          .isInstanceOf(CliException.class)
          .hasMessageContaining(bad[1]);
    }
  }

  /**
   * A 24 MiB body written whole before the answer is read: past the default byte bound (8 MiB) the
   * connection would be cut and the write fail; within the configured 64 MiB the 413 is read.
   */
  @Test
  void theByteBound_fromTheConfig_letsAWholeBodyWriterReadIts413() throws Exception {
    Path c =
        config(
            "{\"port\": 0, \"meter\": \"estimator\", \"max_body_bytes\": 1000,"
                + " \"refused_body_drain_bytes\": 67108864, \"refused_body_drain_s\": 30}");
    InProcessServe serve = InProcessServe.start(tmp.resolve("port"), "--config", c.toString());
    int length = 24 << 20;
    try (serve;
        Socket s = new Socket()) {
      s.connect(new InetSocketAddress("127.0.0.1", serve.port()), 5_000);
      s.setSoTimeout(10_000);
      OutputStream out = s.getOutputStream();
      out.write(
          ("POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                  + "Content-Type: application/json\r\nContent-Length: "
                  + length
                  + "\r\n\r\n")
              .getBytes(StandardCharsets.US_ASCII));
      out.write(new byte[length]);
      out.flush();
      byte[] got = s.getInputStream().readNBytes(12);
      assertThat(new String(got, StandardCharsets.US_ASCII)).isEqualTo("HTTP/1.1 413");
    }
  }
}
