package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A {@code mesh serve --config} file in another format (YAML, a {@code .properties} file as the
 * Spring starter reads) is refused saying what the configuration is, with an example, and which
 * formats are not read: the parser's own words name only the token it stopped at.
 */
class ServeConfigWrongFormatTest {
  @TempDir Path tmp;

  /**
   * Regression: found walking a new user's first hour; the refusal was "mesh.yaml is not JSON: line
   * 1, column 1: Unrecognized token 'journal': was expecting (JSON String, Number, ...)".
   */
  @Test
  void aYamlOrPropertiesConfiguration_isRefused_sayingWhatTheConfigurationIs() throws Exception {
    for (String[] file :
        new String[][] {
          {"mesh.yaml", "journal: a.journal\nport: 8080\n"},
          {"mesh.properties", "mesh.journal=a.journal\n"}
        }) {
      Path config = Files.writeString(tmp.resolve(file[0]), file[1]);
      assertThatThrownBy(() -> ServeConfig.read(config))
          .isInstanceOf(CliException.class)
          .hasMessageContaining(file[0] + " is not JSON: line 1, column 1")
          .hasMessageContaining("a mesh serve configuration is one JSON object, such as {")
          .hasMessageContaining("YAML and .properties files are not read");
    }
  }
}
