package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A configuration's whole number for a setting kept as an {@code int} is refused past {@link
 * Integer#MAX_VALUE}, naming the file and the key, never wrapped: {@code "max_concurrent_serves":
 * 4294967297} was read as 1 (a server serving one request at a time, silently), and {@code
 * "work_per_token": 4294967312} as 16. Seen while writing mesh-fuzz's {@code ServeConfigFuzzTest},
 * whose built inputs check that a number taken is the number written.
 */
class ServeConfigIntRangeTest {
  @TempDir Path tmp;

  private Path config(String json) throws Exception {
    Path c = tmp.resolve("mesh.json");
    Files.writeString(c, json);
    return c;
  }

  @Test
  void maxConcurrentServesPastAnInt_isRefusedNotWrapped() throws Exception {
    Path c = config("{\"max_concurrent_serves\": 4294967297}");
    assertThatThrownBy(() -> ServeConfig.read(c))
        .isInstanceOf(CliException.class)
        .hasMessage(c + ": max_concurrent_serves must be at most 2147483647, not 4294967297");
    assertThat(
            ServeConfig.read(config("{\"max_concurrent_serves\": 2147483647}"))
                .maxConcurrentServes())
        .contains(Integer.MAX_VALUE);
  }

  @Test
  void workPerTokenPastAnInt_isRefusedNotWrapped() throws Exception {
    Path c =
        config(
            "{\"backends\": [{\"type\": \"reference\", \"name\": \"r\", \"work_per_token\":"
                + " 4294967312}]}");
    assertThatThrownBy(() -> ServeConfig.read(c))
        .isInstanceOf(CliException.class)
        .hasMessageContaining("backends[0]")
        .hasMessageContaining("work_per_token must be at most 2147483647, not 4294967312");
  }
}
