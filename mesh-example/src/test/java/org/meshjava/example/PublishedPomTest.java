package org.meshjava.example;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

/**
 * What an application's build inherits from the published POMs. The reactor cannot show it (every
 * module here declares its dependencies itself), so these read the POMs the way Maven does for a
 * consumer: an optional dependency stops at the module that declares it.
 */
class PublishedPomTest {
  private static final Path PARENT = Path.of("..", "pom.xml");

  /**
   * Regression: jspecify was optional, so a named module of an application that required {@code
   * org.meshjava.steward} failed to compile with "module not found: org.jspecify": every module's
   * {@code requires static transitive org.jspecify} makes javac resolve it for the consumer too.
   */
  @Test
  void jspecify_reachesAConsumersModulePath_sinceEveryModuleRequiresItTransitively()
      throws Exception {
    assertThat(
            Files.readString(
                Path.of("..", "mesh-core", "src", "main", "java", "module-info.java"),
                StandardCharsets.UTF_8))
        .contains("requires static transitive org.jspecify;");

    Element jspecify =
        parentDependencies().stream()
            .filter(d -> child(d, "artifactId").equals("jspecify"))
            .findFirst()
            .orElseThrow();
    assertThat(child(jspecify, "optional")).as("optional").isNotEqualTo("true");
    assertThat(child(jspecify, "scope")).as("scope").isIn("", "compile");
  }

  /** The parent's own {@code <dependencies>}, which every module inherits. */
  private static List<Element> parentDependencies() throws Exception {
    Element project =
        DocumentBuilderFactory.newInstance()
            .newDocumentBuilder()
            .parse(PARENT.toFile())
            .getDocumentElement();
    List<Element> found = new ArrayList<>();
    for (Node n = project.getFirstChild(); n != null; n = n.getNextSibling()) {
      if (n instanceof Element e && e.getTagName().equals("dependencies")) {
        NodeList deps = e.getElementsByTagName("dependency");
        for (int i = 0; i < deps.getLength(); i++) {
          found.add((Element) deps.item(i));
        }
      }
    }
    return found;
  }

  /** The text of {@code parent}'s direct child {@code name}, or "" when it has none. */
  private static String child(Element parent, String name) {
    for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
      if (n instanceof Element e && e.getTagName().equals(name)) {
        return e.getTextContent().trim();
      }
    }
    return "";
  }
}
