package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.engine.jlama.JlamaEngine;
import org.meshjava.engine.jlama.TinyLlama;

/** The model-engine backend kinds of the serve configuration. */
class ServeConfigEnginesTest {
  @TempDir Path tmp;

  private Path config(String json) throws Exception {
    Path f = tmp.resolve("mesh.json");
    Files.writeString(f, json);
    return f;
  }

  @Test
  void jlama_withAModelDirectory_isRegistered_greedyAndBoundToItsWeights() throws Exception {
    TinyLlama.write(tmp.resolve("tiny"), 7);
    ServeConfig c =
        ServeConfig.read(
            config(
                """
                {"backends": [{"type": "jlama", "name": "local", "model_dir": "tiny"}],
                 "default_decision_engine": false}
                """));
    assertThat(c.defaultDecisionEngine()).isFalse();
    assertThat(c.backends()).hasSize(1);
    JlamaEngine e = (JlamaEngine) c.backends().get(0);
    assertThat(e.deterministic()).isTrue();
    assertThat(e.weights().orElseThrow().precision()).isEqualTo("fp32");
    e.close();
  }

  /**
   * Regression: an upstream backend sealed an operator-typed {@code weights_digest} (with {@code
   * bf16} when no precision was given) that nothing verified, and it satisfied {@code ModelIn}.
   */
  @Test
  void upstream_withAWeightsDigestOrPrecision_isRefused_andBindsNoWeights() throws Exception {
    String digest = "ab".repeat(32);
    for (String claim :
        new String[] {
          "\"weights_digest\": \"" + digest + "\"",
          "\"weights_digest\": \"" + digest + "\", \"precision\": \"fp16\"",
          "\"precision\": \"bf16\""
        }) {
      assertThatThrownBy(
              () ->
                  ServeConfig.read(
                      config(
                          "{\"backends\": [{\"type\": \"upstream\", \"name\": \"u\","
                              + " \"base_url\": \"http://127.0.0.1:9/v1\", \"model\": \"m\", "
                              + claim + "}]}")))
          .as(claim)
          .isInstanceOf(CliException.class)
          .hasMessageContaining("cannot verify an upstream's weights");
    }
    ServeConfig plain =
        ServeConfig.read(
            config(
                """
                {"backends": [{"type": "upstream", "name": "u",
                  "base_url": "http://127.0.0.1:9/v1", "model": "m"}],
                 "default_decision_engine": false}
                """));
    assertThat(plain.backends().get(0).weights()).isEmpty();
  }

  @Test
  void jlama_onAnUnknownLayout_andMiniLm_belowTheTemperatureFloor_areOneLineErrors()
      throws Exception {
    Files.createDirectories(tmp.resolve("empty"));
    assertThatThrownBy(
            () ->
                ServeConfig.read(
                    config(
                        """
                        {"backends": [{"type": "jlama", "name": "local", "model_dir": "empty"}]}
                        """)))
        .isInstanceOf(CliException.class)
        .hasMessageContaining("UNKNOWN_LAYOUT");
    assertThatThrownBy(
            () ->
                ServeConfig.read(
                    config(
                        """
                        {"backends": [{"type": "onnx-minilm", "name": "m", "temperature": 0.01}]}
                        """)))
        .isInstanceOf(CliException.class)
        .hasMessageContaining("INVALID_TEMPERATURE");
  }

  @Test
  void defaultDecisionEngine_isOnUnlessTurnedOff() throws Exception {
    assertThat(ServeConfig.empty().defaultDecisionEngine()).isTrue();
    assertThat(ServeConfig.read(config("{}")).defaultDecisionEngine()).isTrue();
  }
}
