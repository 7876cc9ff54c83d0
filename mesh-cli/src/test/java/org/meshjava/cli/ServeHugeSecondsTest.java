package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code mesh serve}'s time settings, in seconds, refused above a year rather than overflowing
 * where the server counts them in milliseconds or nanoseconds: {@code "body_deadline_s"} near
 * {@code Long.MAX_VALUE} answered every request 500 {@code java.lang.ArithmeticException: long
 * overflow}; {@code "header_deadline_s"}, {@code "write_timeout_s"} and {@code --write-timeout-s}
 * failed the start with the JDK's words (an internal error); {@code --grace-seconds} overflowed in
 * the drain, at the SIGTERM it was meant for.
 */
class ServeHugeSecondsTest {
  @TempDir Path tmp;

  private static final String HUGE = "9223372036854775807";

  @Test
  void everySecondsKey_aboveAYear_isRefused_namingIt() throws Exception {
    for (String key :
        List.of(
            "body_deadline_s",
            "header_deadline_s",
            "write_timeout_s",
            "delivery_timeout_s",
            "engine_deadline_s")) {
      for (String value : List.of(HUGE, "31536001")) {
        Path c = tmp.resolve("mesh.json");
        Files.writeString(c, "{\"" + key + "\": " + value + "}");
        assertThatThrownBy(() -> ServeConfig.read(c))
            .as(key + " " + value)
            .isInstanceOf(CliException.class)
            .hasMessageContaining(key + " must be from 1 to 31536000 (a year), not " + value);
      }
    }
    Path upstream = tmp.resolve("upstream.json");
    Files.writeString(
        upstream,
        """
        {"backends": [{"type": "upstream", "name": "u", "model": "m",
                       "base_url": "http://127.0.0.1:9/v1", "timeout_s": %s}]}"""
            .formatted(HUGE));
    assertThatThrownBy(() -> ServeConfig.read(upstream))
        .isInstanceOf(CliException.class)
        .hasMessageContaining("backends[0]: timeout_s must be from 1 to 31536000");
    Path year = tmp.resolve("year.json");
    Files.writeString(year, "{\"write_timeout_s\": 31536000}");
    assertThat(ServeConfig.read(year).writeTimeoutSeconds()).contains(31_536_000L);
  }

  @Test
  void hugeFlags_areRefused_beforeListening() throws Exception {
    // The port is taken, so a start that got as far as listening would be refused for that.
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      String port = Integer.toString(taken.getLocalPort());
      for (String flag : List.of("--write-timeout-s", "--grace-seconds")) {
        MeshCommandTest.Run run =
            MeshCommandTest.mesh("serve", "--meter", "estimator", "--port", port, flag, HUGE);
        assertThat(run.code()).as(run.err()).isEqualTo(1);
        assertThat(run.err())
            .as(flag)
            .contains(flag + " must be from ")
            .contains("to 31536000")
            .doesNotContain("internal error");
      }
    }
  }
}
