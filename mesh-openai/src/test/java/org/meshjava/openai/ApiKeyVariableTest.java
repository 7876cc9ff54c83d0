package org.meshjava.openai;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/**
 * The one rule {@code mesh serve}'s {@code api_key_env} and the Spring starter's {@code
 * api-key-env} share: the variable must hold a key that an {@code Authorization} header carries as
 * it is, and a refusal names the variable (when its name cannot be the key) but never the value.
 */
class ApiKeyVariableTest {
  private static final String SECRET = "sk-secret";

  @Test
  void aKeyAHeaderCarries_isReturnedAsItIs() {
    assertThat(ApiKeyVariable.value("api_key_env", "UPSTREAM_KEY", SECRET)).isEqualTo(SECRET);
  }

  @Test
  void unsetEmptyOrBlank_isRefused_namingTheVariable() {
    assertThatThrownBy(() -> ApiKeyVariable.value("api_key_env", "UPSTREAM_KEY", null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("environment variable UPSTREAM_KEY is not set");
    assertThatThrownBy(() -> ApiKeyVariable.value("api_key_env", "UPSTREAM_KEY", ""))
        .hasMessageContaining("UPSTREAM_KEY is set but empty");
    assertThatThrownBy(() -> ApiKeyVariable.value("api_key_env", "UPSTREAM_KEY", " \t"))
        .hasMessageContaining("UPSTREAM_KEY is set but blank");
    assertThatThrownBy(() -> ApiKeyVariable.value("api-key-env", " ", SECRET))
        .hasMessage("api-key-env is empty; name the environment variable that holds the key");
  }

  /** A "name" that is not one of capitals, digits and _ is most often the key itself. */
  @Test
  void aNameThatMayBeTheKey_isNotRepeated() {
    assertThatThrownBy(() -> ApiKeyVariable.value("api_key_env", SECRET, null))
        .hasMessageContaining("that api_key_env names (not repeated")
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain(SECRET));
  }

  @Test
  void aLineBreak_isRefused_withoutQuotingTheKey() {
    assertThatThrownBy(() -> ApiKeyVariable.value("api_key_env", "UPSTREAM_KEY", SECRET + "\n"))
        .hasMessageContaining("UPSTREAM_KEY holds a line break or another control character")
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain(SECRET));
  }

  /**
   * Regression: a key with a character outside ASCII (a typographic quote or a no-break space
   * copied from a web page with it) was taken, and sent differently by the two clients (UTF-8 bytes
   * on plain HTTP, {@code ?} by Jetty): every request was then refused by the upstream with a 401,
   * far from the cause. No bearer token holds one (RFC 6750 §2.1).
   */
  @Test
  void aCharacterOutsideAscii_isRefused_withoutQuotingTheKey() {
    for (String key :
        new String[] {
          "\u201c" + SECRET + "\u201d", SECRET + "\u00a0", SECRET + "\u200b", "sk-s\u00e9cret"
        }) {
      assertThatThrownBy(() -> ApiKeyVariable.value("api_key_env", "UPSTREAM_KEY", key))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("UPSTREAM_KEY holds a character outside ASCII")
          .satisfies(e -> assertThat(e.getMessage()).doesNotContain("sk-s"));
      // The builder, which every caller (an embedder's too) goes through, holds the same rule.
      assertThatThrownBy(() -> UpstreamEngine.builder().apiKey(key))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("apiKey holds a character outside ASCII")
          .satisfies(e -> assertThat(e.getMessage()).doesNotContain("sk-s"));
    }
  }
}
