package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/**
 * An upstream's {@code api_key_env} that holds the key itself rather than its variable's name (the
 * ordinary slip: {@code "api_key_env": "sk-proj-…"}) names no variable that is set, and the refusal
 * said "environment variable sk-proj-… is not set", writing the key to the terminal and to any log
 * that keeps stderr. A name that is not one of capitals, digits and {@code _} is not repeated.
 */
class ApiKeyEnvNotEchoedTest {
  private static final String WHERE = "mesh.json: backends[0]";

  @Test
  void aKeyWrittenWhereItsVariablesNameBelongs_isNotRepeated() {
    for (String keyAsName : new String[] {"sk-proj-Abc123secret", "abc123secretdeadbeef"}) {
      assertThatThrownBy(() -> ServeConfig.apiKey(keyAsName, null, WHERE))
          .isInstanceOf(CliException.class)
          .hasMessageStartingWith(WHERE + ": environment variable that api_key_env names")
          .hasMessageEndingWith(" is not set")
          .satisfies(e -> assertThat(e.getMessage()).doesNotContain("secret"));
    }
  }

  @Test
  void aConventionalName_isStillNamed() {
    assertThatThrownBy(() -> ServeConfig.apiKey("OPENAI_API_KEY", "", WHERE))
        .hasMessageContaining("environment variable OPENAI_API_KEY is set but empty");
  }
}
