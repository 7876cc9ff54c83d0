package org.meshjava.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The README's Spring Boot imports keep Boot's BOM from pinning a library older than the one
 * mesh-java is built and tested with. Regression: the list left out SLF4J (Boot 4.0.7 has 2.0.18,
 * mesh-java 2.0.20) and, having no BOM to import, the PostgreSQL driver, so an application that
 * followed it ran {@code mesh-journal-postgres} on Boot's older driver.
 */
class ReadmeBootImportsTest {
  private static final Path README = Path.of("..", "README.md");
  private static final Path PARENT = Path.of("..", "pom.xml");

  /** Each library Boot also manages: the artifact the README names, and the parent's property. */
  private static final Map<String, String> PINNED =
      Map.of(
          "jetty-bom", "jetty.version",
          "micrometer-bom", "micrometer.version",
          "jackson-bom", "jackson.version",
          "slf4j-bom", "slf4j.version",
          "postgresql", "postgresql.version");

  @Test
  void readme_managesEveryLibraryBootPinsOlder_atTheBuildsVersion_aheadOfBootsBom()
      throws Exception {
    String readme = Files.readString(README, StandardCharsets.UTF_8);
    String parent = Files.readString(PARENT, StandardCharsets.UTF_8);
    int from = readme.indexOf("Spring Boot's own BOM");
    String imports = readme.substring(from, readme.indexOf("```yaml", from));
    int boot = imports.indexOf("<artifactId>spring-boot-dependencies</artifactId>");
    assertThat(boot).as("Boot's BOM is imported").isPositive();

    PINNED.forEach(
        (artifact, property) -> {
          String line =
              "<artifactId>" + artifact + "</artifactId><version>" + version(parent, property);
          assertThat(imports).as(artifact).contains(line);
          assertThat(imports.indexOf(line)).as(artifact + " ahead of Boot's BOM").isLessThan(boot);
        });
  }

  private static String version(String pom, String property) {
    Matcher m = Pattern.compile("<" + Pattern.quote(property) + ">([^<]+)<").matcher(pom);
    assertThat(m.find()).as(property).isTrue();
    return m.group(1);
  }
}
