package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A configuration key that two known keys are as likely meant by (the beginning of one, a letter
 * away from the other) names both, and a key that a known one begins with names that one: naming
 * one alone would send the user after the wrong setting.
 */
class NearestKeyAsLikelyTest {
  @TempDir Path tmp;

  private String refusal(String json) throws Exception {
    return ServeConfigNearestKeyTest.refusal(tmp, json);
  }

  /**
   * Regression: {@code every_r} and {@code every} named {@code every_s} alone, the key fewest
   * letters away, though {@code every_records} begins with what was typed.
   */
  @Test
  void theBeginningOfOneKey_aLetterFromAnother_namesBoth() throws Exception {
    assertThat(refusal("{\"snapshots\": {\"every_r\": 10}}"))
        .contains("unknown key 'every_r' (did you mean 'every_records' or 'every_s'?); known:");
    assertThat(refusal("{\"snapshots\": {\"every\": 10}}"))
        .contains("unknown key 'every' (did you mean 'every_records' or 'every_s'?); known:");
  }

  @Test
  void aKeyWithoutItsUnit_namesTheKey() throws Exception {
    assertThat(refusal("{\"write_timeout\": 5}")).contains("(did you mean 'write_timeout_s'?)");
  }

  @Test
  void twoKeysAsNear_areBothNamed_tooManyNone() {
    assertThat(NearestKey.of("ab", Set.of("ax", "ay", "zz"))).containsExactly("ax", "ay");
    assertThat(NearestKey.of("max", ServeConfig.KEYS)).isEmpty();
    assertThat(NearestKey.hint("ab", Set.of("ax", "ay", "az")))
        .isEqualTo(" (did you mean 'ax', 'ay' or 'az'?)");
    assertThat(NearestKey.alternatives(List.of("--port"))).isEqualTo("--port");
  }
}
