package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

/**
 * How mesh-cli's pom picks {@link LauncherModulePathTest} for its {@code launcher} execution (after
 * {@code package}) and keeps it out of {@code default-test}, read from the pom as Maven reads it: a
 * full build takes minutes, and the choice is in the configuration alone.
 */
class LauncherExecutionSelectionTest {
  private static final Path POM = Path.of("pom.xml");

  /**
   * Regression: the launcher execution named its tag in {@code <groups>}, which a {@code -Dgroups}
   * given on the command line does not override, so the browser run of {@code .ci/run} ({@code
   * -Pbrowser -Dgroups=browser}) ran LauncherModulePathTest a second time. The tag is chosen by
   * excluding every test without it, and {@code -Dgroups} narrows that execution too.
   */
  @Test
  void theLauncherExecution_picksItsTagByExclusion_soThatDashDGroupsStillNarrowsIt()
      throws Exception {
    assertThat(LauncherModulePathTest.class.getAnnotation(Tag.class).value()).isEqualTo("launcher");
    Element launcher = configurationOf("launcher");
    assertThat(child(launcher, "groups")).as("<groups> overrides -Dgroups").isEmpty();
    assertThat(tags(child(launcher, "excludedGroups"))).contains("!launcher");
    assertThat(tags(child(configurationOf("default-test"), "excludedGroups"))).contains("launcher");
  }

  private static List<String> tags(String list) {
    return Arrays.stream(list.split(",")).map(String::strip).toList();
  }

  /** The {@code <configuration>} of the surefire execution {@code id} in mesh-cli's pom. */
  private static Element configurationOf(String id) throws Exception {
    NodeList executions =
        DocumentBuilderFactory.newInstance()
            .newDocumentBuilder()
            .parse(POM.toFile())
            .getElementsByTagName("execution");
    List<Element> found = new ArrayList<>();
    for (int i = 0; i < executions.getLength(); i++) {
      Element e = (Element) executions.item(i);
      Node plugin = e.getParentNode().getParentNode();
      if (plugin instanceof Element p
          && child(p, "artifactId").equals("maven-surefire-plugin")
          && child(e, "id").equals(id)) {
        found.add(e);
      }
    }
    assertThat(found).as("surefire execution " + id).hasSize(1);
    for (Node n = found.getFirst().getFirstChild(); n != null; n = n.getNextSibling()) {
      if (n instanceof Element c && c.getTagName().equals("configuration")) {
        return c;
      }
    }
    throw new AssertionError("surefire execution " + id + " has no configuration");
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
