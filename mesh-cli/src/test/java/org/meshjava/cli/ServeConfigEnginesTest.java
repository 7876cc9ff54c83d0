package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.engine.jlama.JlamaEngine;
import org.meshjava.engine.jlama.testing.TinyLlama;

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

  @Test
  void jlama_queueBehindItsOneServe_isConfigurable_andDefaultsToFour() throws Exception {
    TinyLlama.write(tmp.resolve("tiny"), 7);
    ServeConfig c =
        ServeConfig.read(
            config(
                """
                {"backends": [{"type": "jlama", "name": "a", "model_dir": "tiny"},
                              {"type": "jlama", "name": "b", "model_dir": "tiny",
                               "max_waiting_serves": 0}],
                 "default_decision_engine": false}
                """));
    JlamaEngine a = (JlamaEngine) c.backends().get(0);
    JlamaEngine b = (JlamaEngine) c.backends().get(1);
    assertThat(a.maxConcurrentServes()).isEqualTo(1);
    assertThat(a.maxWaitingServes()).isEqualTo(4);
    assertThat(b.maxWaitingServes()).isZero();
    a.close();
    b.close();
    for (String bad : new String[] {"-1", "3000000000"}) {
      assertThatThrownBy(
              () ->
                  ServeConfig.read(
                      config(
                          "{\"backends\": [{\"type\": \"jlama\", \"name\": \"c\","
                              + " \"model_dir\": \"tiny\", \"max_waiting_serves\": "
                              + bad
                              + "}]}")))
          .as(bad)
          .isInstanceOf(CliException.class)
          .hasMessageContaining("max_waiting_serves must be a non-negative");
    }
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
                              + claim
                              + "}]}")))
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

  /**
   * Regression: a jlama {@code model_dir} that names no folder (a typo, or a relative path typed as
   * if from the working folder) was refused in the engine's words, "UNKNOWN_LAYOUT: MISSING_FILE
   * (.): not a directory", naming neither the setting nor where a relative path is read from.
   */
  @Test
  void jlama_withAModelDirThatIsNoFolder_isRefusedNamingTheSettingAndWhereItWasLooked()
      throws Exception {
    assertThatThrownBy(
            () ->
                ServeConfig.read(
                    config(
                        """
                        {"backends": [{"type": "jlama", "name": "local", "model_dir": "modles/x"}]}
                        """)))
        .isInstanceOf(CliException.class)
        .hasMessageContaining("backends[0] (jlama): model_dir 'modles/x' is not a folder: ")
        .hasMessageContaining(tmp.resolve("modles/x").toAbsolutePath().toString())
        .hasMessageContaining("read from the configuration file's folder")
        .hasMessageNotContaining("UNKNOWN_LAYOUT");
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

  @Test
  void caps_perBackend_withADefaultOutputCap_andOutOfRangeValuesRefused() throws Exception {
    ServeConfig c =
        ServeConfig.read(
            config(
                """
                {"backends": [
                  {"type": "reference", "name": "plain"},
                  {"type": "reference", "name": "capped", "max_output_tokens": 4294967295,
                   "max_prompt_tokens": 2048, "max_joule_ceiling_uj": 5000000}]}
                """));
    assertThat(c.capOf("plain"))
        .isEqualTo(org.meshjava.core.ServeLimits.NONE.withMaxOutputTokens(4096));
    assertThat(c.capOf("capped"))
        .isEqualTo(new org.meshjava.core.ServeLimits(2048, 4294967295L, 5_000_000));
    // The embedded defaults get the default cap too.
    assertThat(ServeConfig.empty().capOf("tiny").maxOutputTokens()).isEqualTo(4096);
    assertThatThrownBy(
            () ->
                ServeConfig.read(
                    config(
                        """
                        {"backends": [{"type": "reference", "name": "r", "max_output_tokens": 4294967296}]}
                        """)))
        .isInstanceOf(CliException.class)
        .hasMessageContaining("max_output_tokens");
  }

  @Test
  void anEmptyFile_givesTheDefaults() throws Exception {
    assertThat(ServeConfig.read(config("{}"))).isEqualTo(ServeConfig.empty());
    assertThat(ServeConfig.empty().defaultDecisionEngine()).isTrue();
    assertThat(ServeConfig.empty().snapshots()).isEqualTo(ServeConfig.SnapshotConfig.DEFAULT);
  }

  @Test
  void timeLimits_areReadInSeconds_andZeroIsRefused() throws Exception {
    Map<String, Function<ServeConfig, Optional<Long>>> limits =
        Map.of(
            "body_deadline_s", ServeConfig::bodyDeadlineSeconds,
            "header_deadline_s", ServeConfig::headerDeadlineSeconds,
            "write_timeout_s", ServeConfig::writeTimeoutSeconds,
            "delivery_timeout_s", ServeConfig::deliveryTimeoutSeconds);
    for (Map.Entry<String, Function<ServeConfig, Optional<Long>>> limit : limits.entrySet()) {
      String key = limit.getKey();
      Function<ServeConfig, Optional<Long>> read = limit.getValue();
      assertThat(read.apply(ServeConfig.read(config("{\"" + key + "\": 45}"))))
          .as(key)
          .contains(45L);
      assertThat(read.apply(ServeConfig.empty())).as(key).isEmpty();
      assertThatThrownBy(() -> ServeConfig.read(config("{\"" + key + "\": 0}")))
          .isInstanceOf(CliException.class)
          .hasMessageContaining(key);
    }
  }

  @Test
  void upstream_concurrencyLimit_defaultsTo64_andIsConfigurable() throws Exception {
    ServeConfig c =
        ServeConfig.read(
            config(
                """
                {"backends": [
                  {"type": "upstream", "name": "a", "base_url": "http://127.0.0.1:9/v1", "model": "m"},
                  {"type": "upstream", "name": "b", "base_url": "http://127.0.0.1:9/v1", "model": "m",
                   "max_concurrent_serves": 200}]}
                """));
    assertThat(c.backends().get(0).maxConcurrentServes()).isEqualTo(64);
    assertThat(c.backends().get(1).maxConcurrentServes()).isEqualTo(200);
    assertThatThrownBy(
            () ->
                ServeConfig.read(
                    config(
                        """
                        {"backends": [{"type": "upstream", "name": "a", "model": "m",
                          "base_url": "http://127.0.0.1:9/v1", "max_concurrent_serves": 0}]}
                        """)))
        .hasMessageContaining("max_concurrent_serves");
  }

  @Test
  void localEngine_runsOnePerCore_withNoneWaiting_unlessConfigured() throws Exception {
    ServeConfig c =
        ServeConfig.read(
            config(
                """
                {"backends": [
                  {"type": "reference", "name": "a"},
                  {"type": "reference", "name": "b", "max_concurrent_serves": 3,
                   "max_waiting_serves": 5}]}
                """));
    assertThat(c.backends().get(0).maxConcurrentServes())
        .isEqualTo(Math.max(2, Runtime.getRuntime().availableProcessors()));
    assertThat(c.backends().get(0).maxWaitingServes()).isEqualTo(ServeCommand.LOCAL_WAITING_SERVES);
    assertThat(c.backends().get(1).maxConcurrentServes()).isEqualTo(3);
    assertThat(c.backends().get(1).maxWaitingServes()).isEqualTo(5);
    for (String bad : List.of("\"max_concurrent_serves\": 0", "\"max_waiting_serves\": -1")) {
      assertThatThrownBy(
              () ->
                  ServeConfig.read(
                      config(
                          "{\"backends\": [{\"type\": \"reference\", \"name\": \"r\", "
                              + bad
                              + "}]}")))
          .isInstanceOf(CliException.class)
          .hasMessageContaining(bad.substring(1, bad.indexOf('"', 1)));
    }
  }
}
