package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/**
 * An upstream's {@code api_key_env} names a variable that must hold a token: unset, empty, blank or
 * with a control character in it, it is refused at start naming the variable (never its value), not
 * sent as {@code Authorization: Bearer } (or not sent at all) on every request.
 */
class ServeConfigApiKeyEnvTest {
  private static final String WHERE = "mesh.json: backends[0]";

  private static String refusal(String value) {
    return assertThatThrownBy(() -> ServeConfig.apiKey("UPSTREAM_KEY", value, WHERE))
        .isInstanceOf(CliException.class)
        .actual()
        .getMessage();
  }

  @Test
  void anUnsetVariable_isRefusedNamingIt() {
    assertThat(refusal(null))
        .isEqualTo("mesh.json: backends[0]: environment variable UPSTREAM_KEY is not set");
  }

  @Test
  void anEmptyOrBlankVariable_isRefusedNamingIt() {
    assertThat(refusal(""))
        .isEqualTo(
            "mesh.json: backends[0]: environment variable UPSTREAM_KEY is set but empty; set it"
                + " to the key");
    assertThat(refusal(" \t")).contains("UPSTREAM_KEY is set but blank");
  }

  @Test
  void aVariableWithALineBreak_isRefused_withoutItsValue() {
    for (String value : new String[] {"sk-secret\n", "sk-sec\r\nret", "sk-\u0000secret"}) {
      assertThat(refusal(value))
          .contains("UPSTREAM_KEY holds a line break or another control character")
          .doesNotContain("secret");
    }
  }

  @Test
  void aToken_isTakenAsItIs() throws Exception {
    assertThat(ServeConfig.apiKey("UPSTREAM_KEY", "sk-abc 123", WHERE)).isEqualTo("sk-abc 123");
  }
}
