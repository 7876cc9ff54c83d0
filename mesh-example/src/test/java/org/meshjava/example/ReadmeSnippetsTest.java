package org.meshjava.example;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every Java snippet of the top README and the module READMEs, read out of the Markdown and
 * compiled against the current API, so that a snippet a developer pastes cannot name a method, type
 * or checked exception that no longer exists. Running them is left to the tests that own each one
 * ({@link MainTest}, {@link TourTest}, the modules' example tests); this one holds the READMEs'
 * text itself.
 *
 * <p>A snippet is a fragment: it leaves out its imports and the values it was handed ({@code seed},
 * {@code request}...). {@link #CONTEXTS} supplies them, keyed by the snippet's first line, and
 * nothing else: the snippet's own lines are compiled verbatim. The org.meshjava packages an
 * application would import are imported whole.
 */
class ReadmeSnippetsTest {
  private static final Path ROOT = Path.of("..");
  private static final Pattern JAVA_BLOCK =
      Pattern.compile("^```java\\n(.*?)^```$", Pattern.DOTALL | Pattern.MULTILINE);

  /** The exported packages a snippet may name without an import of its own. */
  private static final List<String> IMPORTED =
      List.of(
          "org.meshjava.core",
          "org.meshjava.core.bytes",
          "org.meshjava.core.crypto",
          "org.meshjava.core.identity",
          "org.meshjava.core.weights",
          "org.meshjava.energy",
          "org.meshjava.engine",
          "org.meshjava.engine.jlama",
          "org.meshjava.engine.onnx",
          "org.meshjava.jcp",
          "org.meshjava.journal",
          "org.meshjava.journal.postgres",
          "org.meshjava.metrics",
          "org.meshjava.openai",
          "org.meshjava.receipt",
          "org.meshjava.router",
          "org.meshjava.steward",
          "java.nio.charset",
          "java.nio.file",
          "java.time",
          "java.util");

  /** What a snippet leaves to its reader: imports outside {@link #IMPORTED}, and free variables. */
  private record Context(String imports, String givens) {
    static final Context NONE = new Context("", "");

    static Context given(String givens) {
      return new Context("", givens);
    }
  }

  /**
   * Each snippet's context, by its first line. A snippet whose first line is not here fails {@link
   * #everySnippet_hasAContext}: add it with what it leaves out (or {@link #NOT_HERE}, with why).
   */
  private static final Map<String, Context> CONTEXTS =
      Map.ofEntries(
          Map.entry(
              "OpenAIClient client = OpenAIOkHttpClient.builder()",
              new Context(
                  """
                  import com.openai.client.OpenAIClient;
                  import com.openai.client.okhttp.OpenAIOkHttpClient;
                  import com.openai.core.JsonValue;
                  import com.openai.models.chat.completions.ChatCompletion;
                  import com.openai.models.chat.completions.ChatCompletionCreateParams;
                  """,
                  "")),
          Map.entry("package org.meshjava.example;", Context.NONE),
          Map.entry(
              "// A key you keep gives the steward an identity that outlives the process.",
              Context.given("byte[] seed = null; SigningKey callerKey = null;")),
          Map.entry(
              "try (Steward steward = Steward.ephemeral()",
              new Context(
                  """
                  import dev.langchain4j.data.message.UserMessage;
                  import dev.langchain4j.model.chat.ChatModel;
                  import dev.langchain4j.model.chat.request.ChatRequest;
                  import dev.langchain4j.model.chat.response.ChatResponse;
                  import org.meshjava.langchain4j.*;
                  """,
                  "SigningKey myKey = null; GrantChain myGrantChain = null;")),
          Map.entry(
              "Steward.Builder builder = Steward.builder(key);",
              Context.given("SigningKey key = null; String url = null;")),
          Map.entry("import io.micrometer.core.instrument.MeterRegistry;", Context.NONE),
          Map.entry(
              "MeterDiscovery found = MeterDiscovery.discover(DiscoveryOptions.defaults()); //"
                  + " yours to close",
              Context.given(
                  "ServingEngine engine = null; CostProfile costProfile = null;"
                      + " ServeOutcome outcome = null;")),
          Map.entry(
              "try (JlamaEngine llama ="
                  + " JlamaEngine.builder(Path.of(\"models/TinyLlama-1.1B-Chat-v1.0\")).build();",
              Context.NONE),
          Map.entry(
              "try (OnnxDecisionEngine minilm = OnnxDecisionEngine.builder().build();",
              Context.NONE),
          Map.entry(
              "SigningKey org = Jcp.newKey();                 // owns the budget",
              Context.given(
                  "String stewardDidText = null; ContentId weightsDigest = null;"
                      + " ServeRequest request = null;")),
          Map.entry(
              "List<GrantChain> shards = Jcp.shard(me, mine,",
              Context.given(
                  "SigningKey me = null; GrantChain mine = null; DidKey stewardA = null;"
                      + " DidKey stewardB = null;")),
          Map.entry(
              "Gate gate = Gate.create(stewardDid, SpendLedger.inMemory(), Revocations.none());",
              Context.given(
                  "DidKey stewardDid = null; ServeRequest request = null; String wire = null;"
                      + " ContentId weightsDigest = null; long meteredUj = 0;")));

  /**
   * Snippets not compiled here, with why. The Spring one is a bean's fields, and compiling it here
   * would put Spring Boot on the class path the examples run on.
   */
  private static final Map<String, String> NOT_HERE =
      Map.of(
          "@Autowired Steward steward;                       // serve, disclose, witness as in"
              + " \"Embedding it\"",
          "a Spring bean's fields; the starter's ReadmeSpringSnippetTest compiles it, with Spring"
              + " on its class path");

  /** One fenced Java block of a README. */
  private record Snippet(Path readme, int line, String code) {
    /** A class name that says where the snippet is, e.g. {@code Readme_mesh_jcp_27}. */
    String className() {
      String where = ROOT.relativize(readme).toString().replace("README.md", "");
      return ("Readme_" + where + line).replaceAll("[^A-Za-z0-9]+", "_");
    }

    String firstLine() {
      return code.lines().findFirst().orElse("");
    }

    @Override
    public String toString() {
      return ROOT.relativize(readme) + ":" + line;
    }
  }

  @Test
  void everySnippet_hasAContext() throws IOException {
    List<Snippet> snippets = snippets();
    assertThat(snippets).as("Java snippets in the READMEs").hasSizeGreaterThanOrEqualTo(13);
    for (Snippet s : snippets) {
      assertThat(CONTEXTS.containsKey(s.firstLine()) || NOT_HERE.containsKey(s.firstLine()))
          .as(
              "%s: a Java snippet this test does not know; add its first line to"
                  + " ReadmeSnippetsTest.CONTEXTS with the imports and values it leaves out:%n%s",
              s, s.firstLine())
          .isTrue();
    }
  }

  @TestFactory
  Stream<DynamicTest> everySnippet_compilesVerbatim_againstTheCurrentApi(@TempDir Path dir)
      throws IOException {
    return snippets().stream()
        .filter(s -> CONTEXTS.containsKey(s.firstLine()))
        .map(s -> DynamicTest.dynamicTest(s.toString(), () -> assertCompiles(s, dir)));
  }

  private static void assertCompiles(Snippet s, Path dir) throws IOException {
    Context context = CONTEXTS.get(s.firstLine());
    String name = s.className();
    Path src = dir.resolve(name).resolve(sourceName(s, name));
    Files.createDirectories(src.getParent());
    Files.writeString(src, source(s, context, name), StandardCharsets.UTF_8);
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    StringWriter diagnostics = new StringWriter();
    boolean ok =
        javac
            .getTask(
                diagnostics,
                null,
                null,
                List.of(
                    "-proc:none",
                    "-d",
                    dir.resolve(name + "-classes").toString(),
                    "-cp",
                    System.getProperty("java.class.path")),
                null,
                javac
                    .getStandardFileManager(null, null, StandardCharsets.UTF_8)
                    .getJavaFileObjects(src))
            .call();
    assertThat(ok).as("%s does not compile as the README shows it:%n%s", s, diagnostics).isTrue();
  }

  /** A whole compilation unit keeps its class's name; a fragment gets a class of its own. */
  private static String sourceName(Snippet s, String name) {
    Matcher cls = Pattern.compile("(?m)^public (?:final )?class (\\w+)").matcher(s.code());
    return (s.code().startsWith("package ") && cls.find() ? cls.group(1) : name) + ".java";
  }

  private static String source(Snippet s, Context context, String name) {
    if (s.code().startsWith("package ")) {
      return s.code();
    }
    List<String> own = new ArrayList<>();
    List<String> body = new ArrayList<>();
    for (String line : s.code().lines().toList()) {
      (line.startsWith("import ") ? own : body).add(line);
    }
    StringBuilder out = new StringBuilder();
    own.forEach(line -> out.append(line).append('\n'));
    out.append(context.imports());
    IMPORTED.forEach(p -> out.append("import ").append(p).append(".*;\n"));
    out.append("class ").append(name).append(" {\n  void run() throws Exception {\n");
    out.append(context.givens()).append('\n');
    body.forEach(line -> out.append(line).append('\n'));
    return out.append("  }\n}\n").toString();
  }

  private static List<Snippet> snippets() throws IOException {
    List<Path> readmes = new ArrayList<>();
    readmes.add(ROOT.resolve("README.md"));
    try (Stream<Path> modules = Files.list(ROOT)) {
      modules
          .map(m -> m.resolve("README.md"))
          .filter(Files::isRegularFile)
          .sorted()
          .forEach(readmes::add);
    }
    List<Snippet> found = new ArrayList<>();
    for (Path readme : readmes) {
      String text = Files.readString(readme, StandardCharsets.UTF_8);
      Matcher m = JAVA_BLOCK.matcher(text);
      while (m.find()) {
        int line = (int) text.substring(0, m.start()).lines().count() + 1;
        found.add(new Snippet(readme, line, m.group(1)));
      }
    }
    return found;
  }
}
