package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class DigestProgressLineTest {
  private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
  private final PrintStream err = new PrintStream(bytes, true, StandardCharsets.UTF_8);
  private long now;
  private final DigestProgressLine line = new DigestProgressLine("big", err, () -> now);

  private String printed() {
    return bytes.toString(StandardCharsets.UTF_8);
  }

  @Test
  void aDigestUnderTwoSeconds_printsNothing() {
    now = 1_000_000_000L;
    line.hashed(500, 1000);
    now = 1_900_000_000L;
    line.hashed(1000, 1000);
    assertThat(printed()).isEmpty();
  }

  @Test
  void aLongDigest_redrawsOneLineInPlace_andEndsIt() {
    now = 2_500_000_000L;
    line.hashed(2_000_000_000L, 8_000_000_000L);
    now += 100_000_000L; // too soon to redraw
    line.hashed(2_100_000_000L, 8_000_000_000L);
    now += 400_000_000L;
    line.hashed(4_000_000_000L, 8_000_000_000L);
    now += 1_000_000_000L;
    line.hashed(8_000_000_000L, 8_000_000_000L);
    line.hashed(8_000_000_000L, 8_000_000_000L); // a repeated final report adds nothing
    assertThat(printed())
        .startsWith("\rbig: hashing weights  25% (2.0 of 8.0 GB")
        .contains("\rbig: hashing weights  50% (4.0 of 8.0 GB")
        .doesNotContain("26%")
        .endsWith("MB/s)" + System.lineSeparator());
    assertThat(printed().split("\r")).hasSize(4);
  }
}
