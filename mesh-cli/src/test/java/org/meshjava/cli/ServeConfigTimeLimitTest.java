package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An upstream's {@code timeout_s} past what a deadline can hold is refused when the configuration
 * is read, naming the entry: it was taken, and every serve through that upstream then failed with
 * an ArithmeticException (its nanoseconds overflow a long). Seen while writing {@code
 * ServeConfigFuzzTest}.
 */
class ServeConfigTimeLimitTest {
  @TempDir Path tmp;

  @Test
  void anUpstreamTimeoutPastTheBound_isRefusedAtRead() throws Exception {
    Path c = tmp.resolve("mesh.json");
    Files.writeString(
        c,
        """
        {"backends": [{"type": "upstream", "name": "u", "base_url": "http://127.0.0.1:1/v1",
          "model": "m", "timeout_s": 9223372036854775807}]}""");
    assertThatThrownBy(() -> ServeConfig.read(c))
        .isInstanceOf(CliException.class)
        .hasMessageContaining("backends[0]")
        .hasMessageContaining("timeout must be at most 36525 days (100 years)");
  }
}
