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
}
