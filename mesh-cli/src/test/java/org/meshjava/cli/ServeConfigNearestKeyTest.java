package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A configuration key that is a typo of a known one, or the known one in another spelling ({@code
 * keyFile}, {@code key-file}), is refused naming the key it was most likely meant as; one near no
 * key (or equally near two) names none. The list of known keys follows either way.
 */
class ServeConfigNearestKeyTest {
  @TempDir Path tmp;

  private String refusal(String json) throws Exception {
    return refusal(tmp, json);
  }

  /** The refusal of a configuration file in {@code dir} that holds {@code json}. */
  static String refusal(Path dir, String json) throws Exception {
    Path file = dir.resolve("mesh.json");
    Files.writeString(file, json);
    return assertThatThrownBy(() -> ServeConfig.read(file))
        .isInstanceOf(CliException.class)
        .actual()
        .getMessage();
  }

  /** Regression: the refusal listed every key and left the user to find the one meant. */
  @Test
  void aTypoOrAnotherSpelling_ofAKnownKey_namesIt() throws Exception {
    assertThat(refusal("{\"jounral\": \"a.journal\"}"))
        .contains("unknown key 'jounral' (did you mean 'journal'?); known: [");
    assertThat(refusal("{\"keyFile\": \"k.key\"}")).contains("(did you mean 'key_file'?)");
    assertThat(refusal("{\"write-timeout-s\": 5}")).contains("(did you mean 'write_timeout_s'?)");
    assertThat(
            refusal(
                "{\"backends\": [{\"type\": \"jlama\", \"name\": \"l\", \"modeldir\": \"m\"}]}"))
        .contains("unknown key 'modeldir' for type 'jlama' (did you mean 'model_dir'?); known: [");
    assertThat(refusal("{\"snapshots\": {\"every_record\": 10}}"))
        .contains("unknown key 'every_record' (did you mean 'every_records'?); known:");
  }

  @Test
  void aKeyNearNoKnownOne_namesNone() throws Exception {
    assertThat(refusal("{\"colour\": \"blue\"}"))
        .contains("unknown key 'colour'; known: [")
        .doesNotContain("did you mean");
  }
}
