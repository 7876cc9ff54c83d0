package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.core.ServingEngine;

/**
 * Every {@code mesh serve} configuration the READMEs show, read by {@link ServeConfig#read} as
 * {@code mesh serve --config} reads it, so an example a user copies cannot name a key, or give a
 * value, that the configuration no longer takes. Two kinds are read: each fenced {@code json} block
 * of a README that shows configurations, and each inline fragment of the top README that sets one
 * top-level key ({@code "snapshots": false}), read as the one key of a configuration.
 *
 * <p>Nothing is started or loaded: the key file and journal an example names are read only by
 * {@code mesh serve} itself, and a {@code jlama} entry's model folder is expected to be missing.
 */
class ReadmeConfigurationExamplesTest {
  private static final Path ROOT = Path.of("..");
  private static final Pattern JSON_BLOCK =
      Pattern.compile("^```json\\n(.*?)^```$", Pattern.DOTALL | Pattern.MULTILINE);

  /** An inline fragment setting one key: {@code `"snapshots": {"every_records": 50000}`}. */
  private static final Pattern FRAGMENT = Pattern.compile("`(\"([a-z_]+)\": [^`]+)`");

  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * The READMEs with fenced {@code json} blocks, and whether those blocks are {@code mesh serve}
   * configurations. A README that gains a block fails {@link #everyReadmeWithJson_isListedHere}
   * until it is listed.
   */
  private static final Map<String, Boolean> READMES =
      Map.of(
          "README.md", true,
          "mesh-engine-jlama/README.md", true,
          // The conformance protocol's messages and a case file, not configurations.
          "conformance/README.md", false);

  @TempDir Path tmp;

  @TestFactory
  Stream<DynamicTest> everyConfigurationBlock_isReadAsMeshServeReadsIt() throws IOException {
    List<DynamicTest> tests = new ArrayList<>();
    for (var readme : READMES.entrySet()) {
      if (!readme.getValue()) {
        continue;
      }
      List<String> blocks = blocks(ROOT.resolve(readme.getKey()));
      assertThat(blocks).as(readme.getKey() + " shows a configuration").isNotEmpty();
      for (int i = 0; i < blocks.size(); i++) {
        String json = blocks.get(i);
        String name = readme.getKey() + " block " + (i + 1);
        tests.add(DynamicTest.dynamicTest(name, () -> readsWithItsBackends(name, json)));
      }
    }
    return tests.stream();
  }

  @Test
  void everyInlineTopLevelSetting_inTheReadme_isRead() throws Exception {
    String readme = Files.readString(ROOT.resolve("README.md"));
    List<String> read = new ArrayList<>();
    Matcher m = FRAGMENT.matcher(readme);
    while (m.find()) {
      if (!ServeConfig.KEYS.contains(m.group(2))) {
        continue; // a request body's field, a backend entry's key, an answer's field
      }
      String json = "{" + m.group(1) + "}";
      if (!parses(json)) {
        continue; // a placeholder value (`"engine_deadline_s": N`), said in words beside it
      }
      Path dir = Files.createDirectories(tmp.resolve("fragment-" + read.size()));
      Path file = Files.writeString(dir.resolve("mesh.json"), json);
      try {
        ServeConfig.read(file);
      } catch (CliException e) {
        throw new AssertionError("README.md's `" + m.group(1) + "`: " + e.getMessage(), e);
      }
      read.add(m.group(1));
    }
    // The snapshot settings, the PostgreSQL journal and default_decision_engine at least.
    assertThat(read).hasSizeGreaterThanOrEqualTo(4);
  }

  @Test
  void everyReadmeWithJson_isListedHere() throws IOException {
    List<String> unlisted = new ArrayList<>();
    List<Path> readmes = new ArrayList<>();
    readmes.add(ROOT.resolve("README.md"));
    try (Stream<Path> modules = Files.list(ROOT)) {
      modules.map(d -> d.resolve("README.md")).filter(Files::isRegularFile).forEach(readmes::add);
    }
    for (Path r : readmes) {
      String name = ROOT.relativize(r).toString().replace('\\', '/');
      if (!blocks(r).isEmpty() && !READMES.containsKey(name)) {
        unlisted.add(name);
      }
    }
    assertThat(unlisted).as("READMEs with json blocks not in READMES").isEmpty();
  }

  /**
   * Reads {@code json} as a configuration file and checks its backends are the ones it names. A
   * {@code jlama} entry's model folder is left absent, so the read ends at the refusal naming it:
   * by then every key of the file and of each entry was checked, and loading a model is {@link
   * ServeConfigEnginesTest}'s to test.
   */
  private void readsWithItsBackends(String name, String json) throws Exception {
    JsonNode root = JSON.readTree(json);
    Path dir = Files.createDirectories(tmp.resolve(name.replaceAll("[^A-Za-z0-9]", "-")));
    List<String> named = new ArrayList<>();
    String modelDir = null;
    for (JsonNode b : root.path("backends")) {
      named.add(b.path("name").asText());
      if (b.path("type").asText().equals("jlama")) {
        modelDir = b.path("model_dir").asText();
      }
    }
    Path file = Files.writeString(dir.resolve("mesh.json"), json);
    ServeConfig config;
    try {
      config = ServeConfig.read(file);
    } catch (CliException e) {
      if (modelDir != null
          && e.getMessage().contains("model_dir '" + modelDir + "' is not a folder")) {
        return;
      }
      throw new AssertionError(name + " is refused: " + e.getMessage(), e);
    }
    try {
      assertThat(modelDir).as(name + " read without its model folder").isNull();
      assertThat(config.backends())
          .extracting(ServingEngine::name)
          .containsExactlyElementsOf(named);
    } finally {
      for (ServingEngine e : config.backends()) {
        if (e instanceof AutoCloseable c) {
          c.close();
        }
      }
    }
  }

  private static List<String> blocks(Path readme) throws IOException {
    List<String> out = new ArrayList<>();
    Matcher m = JSON_BLOCK.matcher(Files.readString(readme));
    while (m.find()) {
      out.add(m.group(1));
    }
    return out;
  }

  private static boolean parses(String json) {
    try {
      JSON.readTree(json);
      return true;
    } catch (IOException e) {
      return false;
    }
  }
}
