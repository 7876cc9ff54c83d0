package org.meshjava.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** Weights bound by content and precision (§3.6). */
class WeightsBindingTest {
  private static final ContentId DIGEST = ContentId.ofBytes(new byte[] {1});

  @Test
  void precision_acceptsShortLowercaseNames() {
    for (String p : new String[] {"fp32", "fp16", "bf16", "int8", "q4_k", "a", "f".repeat(16)}) {
      assertThat(new WeightsBinding(DIGEST, p).precision()).isEqualTo(p);
    }
  }

  @Test
  void precision_refusesAnythingElse() {
    for (String p :
        new String[] {"", "FP32", "fp 32", "8int", "_fp", "fp-32", "f".repeat(17), "fp32\n"}) {
      assertThatThrownBy(() -> new WeightsBinding(DIGEST, p))
          .as("'%s'", p)
          .isInstanceOf(IllegalArgumentException.class);
    }
  }

  @Test
  void bothParts_areRequired() {
    assertThatThrownBy(() -> new WeightsBinding(null, "fp32"))
        .isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> new WeightsBinding(DIGEST, null))
        .isInstanceOf(NullPointerException.class);
  }
}
