package org.meshjava.conformance.pack.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * The reference subject's answer lines are UTF-8 by the same rule as the pack's files and the
 * runner's request lines ({@link JsonUtf8}): an unpaired surrogate an answer echoes is written as
 * its JSON escape, not replaced by {@code ?} on the way out.
 */
class MeshJavaPackSubjectLinesTest {

  @Test
  void anAnswerEchoingAnUnpairedSurrogate_keepsItAsAnEscape() throws Exception {
    byte[] request =
        "{\"id\":\"a\\ud800b\",\"op\":\"no-such-op\"}\n".getBytes(StandardCharsets.UTF_8);
    ByteArrayOutputStream out = new ByteArrayOutputStream();

    new MeshJavaPackSubject()
        .serve(
            new ByteArrayInputStream(request), new PrintStream(out, true, StandardCharsets.UTF_8));

    String line = out.toString(StandardCharsets.UTF_8);
    assertThat(line).contains("\\ud800");
    assertThat(new ObjectMapper().readTree(line).get("id").asText()).isEqualTo("a\ud800b");
  }
}
