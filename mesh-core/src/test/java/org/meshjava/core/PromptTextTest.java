package org.meshjava.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The prompt as bytes (§3.1): what {@code prompt_hash} addresses, copied in and out. */
class PromptTextTest {

  @Test
  void aPrompt_isItsExactBytes_hashedAndCountedAsTheyAre() {
    byte[] bytes = "hé".getBytes(StandardCharsets.UTF_8);
    PromptText p = PromptText.of(bytes);
    bytes[0] = 'X';

    assertThat(p.bytes()).isEqualTo("hé".getBytes(StandardCharsets.UTF_8));
    assertThat(p.length()).isEqualTo(3);
    assertThat(p.hash()).isEqualTo(ContentId.ofBytes("hé".getBytes(StandardCharsets.UTF_8)));
    assertThat(PromptText.of("hé")).isEqualTo(p);
  }

  /** A lossy encoder would give distinct prompts one hash, so one grant would serve them all. */
  @Test
  void text_withAnUnpairedSurrogate_isRefused() {
    assertThatThrownBy(() -> PromptText.of("a\uD800"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("unpaired surrogate");
  }
}
