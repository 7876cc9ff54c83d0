package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.core.CostProfile;
import org.meshjava.core.ServingEngine;
import org.meshjava.engine.ReferenceEngine;
import org.meshjava.openai.UpstreamEngine;

/**
 * Regression: a backend entry of the {@code mesh serve} configuration was read loosely where the
 * top level is strict. A typo'd key ({@code "uj_pertoken"}, {@code "api_key_envv"}) was ignored, so
 * the steward started on the default it was meant to replace (an upstream called without its key);
 * {@code "deterministic": "yes"} and {@code "temperature": "0.5"} were read as false and 0; a wrong
 * value said neither which entry nor, for a missing name, the file only once ({@code mesh.json:
 * mesh.json: backends[0] has no name}). Found by a first-hour walk through the README.
 */
class ServeConfigBackendEntryTest {
  @TempDir Path tmp;

  private Path file;

  /** The message {@code mesh serve --config} refuses {@code json} with. */
  private String refusal(String json) throws Exception {
    file = tmp.resolve("mesh.json");
    Files.writeString(file, json);
    return assertThatThrownBy(() -> ServeConfig.read(file))
        .isInstanceOf(CliException.class)
        .actual()
        .getMessage();
  }

  /** A configuration of one upstream entry, complete but for {@code members} added to it. */
  private static String upstream(String members) {
    return "{\"backends\": [{\"type\": \"upstream\", \"name\": \"u\", \"model\": \"m\","
        + " \"base_url\": \"http://127.0.0.1:9/v1\", "
        + members
        + "}]}";
  }

  @Test
  void aTypoInABackendKey_isRefused_namingTheEntryTheKeyAndTheKnownOnes() throws Exception {
    String m =
        refusal(
            """
            {"backends": [{"type": "reference", "name": "small", "fidelity": "F1",
                           "uj_pertoken": 40}]}
            """);
    assertThat(m)
        .startsWith(file + ": backends[0]: unknown key 'uj_pertoken' for type 'reference'")
        .contains("known: [")
        .contains("uj_per_token")
        .contains("work_per_token");
  }

  /**
   * A backend's fidelity is read by {@link org.meshjava.core.Fidelity#parse}, the rule a request's
   * {@code metadata.fidelity_floor} and the Spring starter share: the name or the level alone.
   */
  @Test
  void aFidelityOtherThanANameOrLevel_isRefused_namingTheEntry() throws Exception {
    for (String bad : new String[] {"f2", "F5", "F02", " F2", "2.0"}) {
      assertThat(
              refusal(
                  "{\"backends\": [{\"type\": \"reference\", \"name\": \"r\", \"fidelity\": \""
                      + bad
                      + "\"}]}"))
          .as(bad)
          .isEqualTo(file + ": backends[0]: fidelity '" + bad + "' is not F0-F4");
    }
  }

  /**
   * An entry that names no cost is priced as the engine's builder prices one left unset (100 µJ a
   * token for a reference engine, 1000 for an upstream), and an entry naming only its per-option
   * cost keeps that default per token: the configuration and the library cannot drift apart.
   */
  @Test
  void anEntryNamingNoCost_isPricedAsItsEngineBuilderLeftUnset() throws Exception {
    file = tmp.resolve("mesh.json");
    Files.writeString(
        file,
        """
        {"backends": [{"type": "reference", "name": "r"},
                      {"type": "reference", "name": "o", "uj_per_option_scored": 7},
                      {"type": "upstream", "name": "u", "model": "m",
                       "base_url": "http://127.0.0.1:9/v1"}]}
        """);
    List<ServingEngine> backends = ServeConfig.read(file).backends();
    CostProfile reference = ReferenceEngine.builder().build().costProfile();
    assertThat(backends.get(0).costProfile()).isEqualTo(reference);
    assertThat(backends.get(1).costProfile()).isEqualTo(reference.withOptionCost(7));
    assertThat(backends.get(2).costProfile())
        .isEqualTo(
            UpstreamEngine.builder()
                .name("u")
                .baseUri(URI.create("http://127.0.0.1:9/v1"))
                .model("m")
                .build()
                .costProfile());
  }

  /**
   * Regression: an {@code onnx-minilm} entry naming only {@code uj_per_token} was priced at 0 µJ a
   * scored option, not the decision engine's 300, so the router under-estimated every decision on
   * it. Each cost the entry leaves out is the registered MiniLM engine's.
   */
  @Test
  void aMiniLmEntryNamingOneCost_keepsTheEnginesDefaultForTheOther() throws Exception {
    ObjectMapper json = new ObjectMapper();
    assertThat(ServeConfig.miniLmCost(json.readTree("{\"uj_per_token\": 30}")))
        .isEqualTo(new CostProfile(30, 300));
    assertThat(ServeConfig.miniLmCost(json.readTree("{\"uj_per_option_scored\": 400}")))
        .isEqualTo(new CostProfile(20, 400));
    assertThat(ServeConfig.miniLmCost(json.readTree("{}"))).isEqualTo(ServeCommand.MINILM_COST);
  }

  @Test
  void anUpstreamsMistypedKeyVariable_isRefused_notCalledWithoutItsKey() throws Exception {
    assertThat(refusal(upstream("\"api_key_envv\": \"KEY\"")))
        .contains("backends[0]: unknown key 'api_key_envv' for type 'upstream'")
        .contains("api_key_env,");
  }

  @Test
  void aKeyOfAnotherBackendType_isRefused_asItWouldBeIgnored() throws Exception {
    assertThat(refusal("{\"backends\": [{\"name\": \"r\", \"model_dir\": \"models\"}]}"))
        .contains("backends[0]: unknown key 'model_dir' for type 'reference'");
    assertThat(
            refusal(
                """
                {"backends": [{"type": "reference", "name": "a"},
                              {"type": "upstream", "name": "u", "model": "m",
                               "base_url": "http://127.0.0.1:9/v1", "max_waiting_serves": 2}]}
                """))
        .contains("backends[1]: unknown key 'max_waiting_serves' for type 'upstream'");
  }

  @Test
  void anUpstreamsWeightsClaim_keepsItsOwnReason() throws Exception {
    assertThat(refusal(upstream("\"precision\": \"fp16\"")))
        .contains("(upstream): 'precision' is not accepted");
  }

  @Test
  void aWrongValueInAnEntry_namesTheFileOnceAndTheEntry() throws Exception {
    String noName = refusal("{\"backends\": [{\"type\": \"reference\"}]}");
    assertThat(noName).isEqualTo(file + ": backends[0] has no name");
    assertThat(refusal("{\"backends\": [{\"name\": \"x\", \"max_output_tokens\": -1}]}"))
        .isEqualTo(file + ": backends[0]: max_output_tokens must be a non-negative whole number");
    assertThat(refusal("{\"backends\": [{\"type\": \"upstream\", \"name\": \"u\"}]}"))
        .isEqualTo(file + ": backends[0] (upstream) has no base_url");
  }

  @Test
  void anEntryThatIsNotAnObject_isSaidSo_notThatItHasNoName() throws Exception {
    assertThat(refusal("{\"backends\": [\"small\"]}"))
        .startsWith(file + ": backends[0] is an object");
  }

  @Test
  void aFlagOfTheWrongType_isRefused_notReadAsFalse() throws Exception {
    assertThat(refusal(upstream("\"deterministic\": \"yes\"")))
        .isEqualTo(file + ": backends[0]: deterministic must be true or false");
    assertThat(refusal("{\"backends\": [{\"name\": \"r\"}], \"default_decision_engine\": \"yes\"}"))
        .isEqualTo(file + ": default_decision_engine must be true or false");
    assertThat(
            refusal(
                "{\"backends\": [{\"type\": \"onnx-minilm\", \"name\": \"m\","
                    + " \"temperature\": \"0.5\"}]}"))
        .isEqualTo(file + ": backends[0]: temperature must be a number");
  }

  @Test
  void aWrongMeterOrPort_inTheFile_namesTheFile_notAFlag() throws Exception {
    assertThat(refusal("{\"meter\": \"rapl\"}"))
        .isEqualTo(file + ": meter 'rapl' is not discover or estimator");
    assertThat(refusal("{\"port\": 80800}")).isEqualTo(file + ": port must be 0-65535, not 80800");
  }

  @Test
  void everyDocumentedKey_isStillAccepted() throws Exception {
    Path f = tmp.resolve("ok.json");
    Files.writeString(
        f,
        """
        {"meter": "estimator", "port": 0, "default_decision_engine": false,
         "backends": [
          {"type": "reference", "name": "small", "fidelity": "F1", "uj_per_token": 40,
           "uj_per_option_scored": 5, "recipe": "small-ref", "work_per_token": 1,
           "max_concurrent_serves": 2, "max_waiting_serves": 3, "max_output_tokens": 16,
           "max_prompt_tokens": 100, "max_joule_ceiling_uj": 1000000},
          {"type": "upstream", "name": "llama", "base_url": "http://127.0.0.1:9/v1",
           "model": "m", "fidelity": "F3", "uj_per_token": 2000, "deterministic": false,
           "timeout_s": 5, "max_concurrent_serves": 4}]}
        """);
    ServeConfig c = ServeConfig.read(f);
    assertThat(c.backends()).hasSize(2);
    assertThat(c.meter()).contains("estimator");
    assertThat(c.defaultDecisionEngine()).isFalse();
  }
}
