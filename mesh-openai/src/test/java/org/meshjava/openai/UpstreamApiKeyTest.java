package org.meshjava.openai;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/**
 * An upstream's bearer token that no {@code Authorization} header can carry is refused when it is
 * given, for every caller of the builder (mesh serve's configuration, the Spring starter, an
 * embedder), without quoting it. It was taken as it was: a token holding a line break was written
 * by the plain-HTTP client into the request as text, ending the header and starting another of the
 * token's choosing, and an empty one was sent as {@code Bearer } on every request.
 */
class UpstreamApiKeyTest {
  private static final String SECRET = "sk-secret";

  @Test
  void aKeyWithALineBreak_isRefused_withoutQuotingIt() {
    for (String key :
        new String[] {SECRET + "\r\nX-Injected: 1", SECRET + "\n", SECRET + "\u0000", "\tsk"}) {
      assertThatThrownBy(() -> UpstreamEngine.builder().apiKey(key))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("control character")
          .satisfies(e -> assertThat(e.getMessage()).doesNotContain("sk"));
    }
  }

  @Test
  void anEmptyOrBlankKey_isRefused() {
    for (String key : new String[] {"", " ", "   "}) {
      assertThatThrownBy(() -> UpstreamEngine.builder().apiKey(key))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("empty or blank");
    }
  }

  @Test
  void anOrdinaryKey_isTaken() {
    assertThat(UpstreamEngine.builder().apiKey(SECRET)).isNotNull();
  }
}
