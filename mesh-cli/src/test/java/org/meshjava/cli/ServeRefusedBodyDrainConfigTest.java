package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code "refused_body_drain_bytes"} and {@code "refused_body_drain_s"}, the bounds within which a
 * body refused 413 is read and discarded before its connection closes (SPEC.md 70), are read from
 * the configuration and refused by name out of range. That they reach the server is checked by
 * {@link ServeBodyBudgetConfigTest}, on the full serve it starts for its own keys.
 */
class ServeRefusedBodyDrainConfigTest {
  @TempDir Path tmp;

  private Path config(String json) throws Exception {
    Path c = tmp.resolve("mesh.json");
    Files.writeString(c, json);
    return c;
  }

  @Test
  void bothKeys_areRead_andOutOfRangeValuesAreRefusedByName() throws Exception {
    ServeConfig c =
        ServeConfig.read(config("{\"refused_body_drain_bytes\": 0, \"refused_body_drain_s\": 7}"));
    assertThat(c.refusedBodyDrainBytes()).contains(0L);
    assertThat(c.refusedBodyDrainSeconds()).contains(7L);
    assertThat(ServeConfig.empty().refusedBodyDrainBytes()).isEmpty();
    // Read alone, without starting a serve: each refusal is the configuration reader's.
    for (String[] bad :
        new String[][] {
          {"{\"refused_body_drain_bytes\": -1}", "refused_body_drain_bytes must be a non-negative"},
          {"{\"refused_body_drain_s\": 0}", "refused_body_drain_s must be from 1"}
        }) {
      Path file = config(bad[0]);
      assertThatThrownBy(() -> ServeConfig.read(file))
          .as(bad[0])
          .isInstanceOf(CliException.class)
          .hasMessageContaining(bad[1]);
    }
  }
}
