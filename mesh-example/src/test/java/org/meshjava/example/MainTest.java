package org.meshjava.example;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.meshjava.core.Fidelity;
import org.meshjava.core.PromptText;
import org.meshjava.core.ServeRequest;

/**
 * Runs the README's embedding example as an application would be run, in its own JVM, and holds the
 * README to its source, so that neither can drift from the other.
 */
class MainTest {
  private static final Path MAIN = Path.of("src/main/java/org/meshjava/example/Main.java");
  private static final Path README = Path.of("..", "README.md");

  @Test
  void main_printsTheSealedReceiptOfThePrompt_andNoWarnings() throws Exception {
    ExampleJvm.Ran r = ExampleJvm.run(Main.class, Path.of("."), "Hello from the example.");

    assertThat(r.code()).as(r.err()).isZero();
    JsonNode receipt = new ObjectMapper().readTree(r.out());
    ServeRequest expected =
        ServeRequest.generation(PromptText.of("Hello from the example."), 32, Fidelity.F1, 100_000);
    assertThat(receipt.get("mesh_receipt").asText()).isEqualTo("mesh/1");
    assertThat(receipt.get("request_id").asText()).isEqualTo(expected.id().hex());
    assertThat(receipt.get("backend").asText()).isEqualTo("reference");
    assertThat(receipt.get("sequence").asLong()).isZero();
    assertThat(receipt.get("tokens_out").asLong()).isEqualTo(32);
    // An application that binds SLF4J and passes the native-access flag hears nothing from the
    // libraries: no "No SLF4J providers" lines and no restricted-method warnings.
    assertThat(r.err()).doesNotContain("SLF4J").doesNotContain("WARNING");
    // What it does hear, as the README says, is meter discovery's log and nothing else: one INFO
    // line saying how figures are graded, and WARN advice only where counters exist but fail.
    List<String> lines = r.err().lines().filter(line -> !line.isBlank()).toList();
    assertThat(lines)
        .allMatch(
            line -> line.matches("\\[[^\\]]+\\] (INFO|WARN) org\\.meshjava\\.energy\\.\\S+ - .*"));
    // Regression: discovery logged an INFO line for each counter it found unavailable (RAPL,
    // NVML, IOReport) before its summary, four lines on a machine with none.
    assertThat(lines.stream().filter(line -> line.contains(" INFO ")))
        .singleElement()
        .asString()
        .contains("org.meshjava.energy.MeterDiscovery")
        .contains("graded");
  }

  @Test
  void readme_showsMainAsItIs() throws Exception {
    String main = Files.readString(MAIN, StandardCharsets.UTF_8);
    String readme = Files.readString(README, StandardCharsets.UTF_8);
    assertThat(readme).contains("```java\n" + main + "```\n");
  }
}
