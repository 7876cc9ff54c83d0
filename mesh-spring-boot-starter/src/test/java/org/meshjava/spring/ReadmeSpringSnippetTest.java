package org.meshjava.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's Spring Boot Java snippet compiles, verbatim, against the starter and Spring AI as a
 * bean's body. mesh-example's {@code ReadmeSnippetsTest} compiles every other README snippet but
 * leaves this one out, since it would put Spring on the examples' class path; before this test
 * nothing held it to the API ({@code MeshSpringAiChatModel.receipt}, the types it names).
 */
class ReadmeSpringSnippetTest {
  private static final Path README = Path.of("..", "README.md");

  /** The imports the snippet leaves to its reader: Spring's, Spring AI's and mesh-java's. */
  private static final String IMPORTS =
      """
      import org.meshjava.receipt.SealedReceipt;
      import org.meshjava.spring.ai.MeshSpringAiChatModel;
      import org.meshjava.steward.Steward;
      import org.springframework.ai.chat.model.ChatModel;
      import org.springframework.ai.chat.model.ChatResponse;
      import org.springframework.ai.chat.prompt.Prompt;
      import org.springframework.beans.factory.annotation.Autowired;
      """;

  @Test
  void theSpringSnippet_compilesAsABeansBody(@TempDir Path dir) throws Exception {
    String readme = Files.readString(README, StandardCharsets.UTF_8);
    Matcher m =
        Pattern.compile(
                "^```java\\n(@Autowired Steward steward;.*?)^```$",
                Pattern.DOTALL | Pattern.MULTILINE)
            .matcher(readme);
    assertThat(m.find()).as("the README's Spring snippet (first line @Autowired Steward)").isTrue();
    Path src = dir.resolve("ReadmeSpringBean.java");
    Files.writeString(
        src, IMPORTS + "class ReadmeSpringBean {\n" + m.group(1) + "}\n", StandardCharsets.UTF_8);
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
                    dir.toString(),
                    "-cp",
                    System.getProperty("java.class.path")),
                null,
                javac
                    .getStandardFileManager(null, null, StandardCharsets.UTF_8)
                    .getJavaFileObjects(src))
            .call();
    assertThat(ok).as("the README's Spring snippet does not compile:%n%s", diagnostics).isTrue();
  }
}
