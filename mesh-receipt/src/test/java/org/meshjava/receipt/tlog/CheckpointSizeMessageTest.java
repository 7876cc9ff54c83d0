package org.meshjava.receipt.tlog;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Base64;
import org.junit.jupiter.api.Test;

/**
 * Regression: a checkpoint size of twenty digits or more was refused as "not a decimal without
 * leading zeros", which it is; only a nineteen-digit size past 2^63−1 was called too large. Every
 * size past the range now reads "too large", and a leading zero still reads as a leading zero.
 */
class CheckpointSizeMessageTest {
  private static final String ORIGIN = "did:key:z6MkehRgf7yJbgaGfYsdoAsKdBPE3dj2CYhowQdcjqSJgvVd";
  private static final String ROOT = Base64.getEncoder().encodeToString(new byte[32]);

  private static String body(String size) {
    return ORIGIN + "\n" + size + "\n" + ROOT + "\n";
  }

  @Test
  void aSizePastTheRange_isTooLarge_whateverItsLength() {
    for (String size :
        new String[] {"9223372036854775808", "18446744073709551616", "1" + "0".repeat(40)}) {
      assertThatThrownBy(() -> Checkpoint.parse(body(size)))
          .as(size)
          .isInstanceOf(LogException.class)
          .hasMessageContaining(
              "the size is too large; the largest accepted is 9223372036854775807 (2^63-1)");
    }
  }

  @Test
  void aLeadingZero_isStillNamedAsOne() {
    assertThatThrownBy(() -> Checkpoint.parse(body("06")))
        .isInstanceOf(LogException.class)
        .hasMessageContaining("leading zeros");
  }
}
