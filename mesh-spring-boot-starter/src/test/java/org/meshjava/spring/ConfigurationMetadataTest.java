package org.meshjava.spring;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The metadata the configuration processor writes from {@link MeshProperties}, which IDEs show
 * beside each {@code mesh.*} key in {@code application.yml}.
 */
class ConfigurationMetadataTest {
  private static final Path METADATA =
      Path.of("target", "classes", "META-INF", "spring-configuration-metadata.json");

  /** Regression: {@code mesh.metrics-grant-id-tags} had no {@code @param}, so no description. */
  @Test
  void everyMeshProperty_hasADescription() throws Exception {
    JsonNode properties = new ObjectMapper().readTree(METADATA.toFile()).get("properties");

    assertThat(properties).isNotEmpty();
    for (JsonNode p : properties) {
      assertThat(p.path("description").asText()).as(p.get("name").asText()).isNotBlank();
    }
  }

  /**
   * Regression: an IDE shows a description as it is written, so a Javadoc tag in an {@code @param}
   * (the first descriptions of the journal's keys said {@code {@code mesh.journal}}) reached users
   * as markup.
   */
  @Test
  void descriptions_areText_notJavadocMarkup() throws Exception {
    for (JsonNode p : properties()) {
      assertThat(p.path("description").asText()).as(p.get("name").asText()).doesNotContain("{@");
    }
  }

  /** The journal's keys are {@code mesh serve}'s, with its defaults. */
  @Test
  void theJournalsKeys_areDescribed_withServesDefaults() throws Exception {
    java.util.Map<String, String> defaults = new java.util.HashMap<>();
    for (JsonNode p : properties()) {
      defaults.put(p.get("name").asText(), p.path("defaultValue").asText(null));
    }
    assertThat(defaults)
        .containsKeys("mesh.journal", "mesh.revocations", "mesh.snapshots.dir")
        .containsEntry("mesh.snapshots.enabled", "true")
        .containsEntry("mesh.snapshots.every-records", "100000")
        .containsEntry("mesh.snapshots.every-s", "0");
  }

  /** {@code mesh.close-grace} is described, with the steward's default of 30 s. */
  @Test
  void closeGrace_isDescribed_withTheStewardsDefault() throws Exception {
    JsonNode grace = property("mesh.close-grace");
    assertThat(grace.path("type").asText()).isEqualTo("java.time.Duration");
    assertThat(grace.path("defaultValue").asText()).isEqualTo("30s");
    assertThat(grace.path("description").asText()).contains("serves in flight");
  }

  /**
   * {@code mesh.fresh-chain} says, where an IDE shows it, that it belongs to a key's first start:
   * unlike {@code mesh serve}'s flag, a property can be left standing.
   */
  @Test
  void freshChain_isDescribed_asForAKeysFirstStartOnly() throws Exception {
    JsonNode fresh = property("mesh.fresh-chain");
    assertThat(fresh.path("defaultValue").asBoolean(true)).isFalse();
    assertThat(fresh.path("description").asText())
        .contains("first start only", "--mesh.fresh-chain=true");
  }

  /** The metadata's entry for {@code name}, failing if there is none. */
  private static JsonNode property(String name) throws Exception {
    for (JsonNode p : properties()) {
      if (p.get("name").asText().equals(name)) {
        return p;
      }
    }
    throw new AssertionError(name + " is not in the metadata");
  }

  private static JsonNode properties() throws Exception {
    return new ObjectMapper().readTree(METADATA.toFile()).get("properties");
  }
}
