package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A configuration that is not JSON is refused in words for whoever wrote it: Jackson's hints for a
 * programmer (the parser feature that would accept a comment or {@code NaN}, the getter of a read
 * limit) are not passed on, since no setting of mesh turns them on.
 */
class JsonRefusalWordsTest {
  @TempDir Path tmp;

  private String refusal(String json) throws Exception {
    Path config = Files.writeString(tmp.resolve("mesh.json"), json);
    MeshCommandTest.Run r = MeshCommandTest.mesh("serve", "--config", config.toString());
    assertThat(r.code()).as(r.err()).isEqualTo(1);
    assertThat(r.err()).contains(config + " is not JSON: ");
    return r.err();
  }

  @Test
  void aComment_NaN_andDeepNesting_areRefusedWithoutJacksonsSettings() throws Exception {
    assertThat(refusal("{\"port\": NaN}"))
        .contains("line 1, column 13: Non-standard token 'NaN'")
        .doesNotContain("enable")
        .doesNotContain("`");
    assertThat(refusal("{\"port\": 1 /* the API */}"))
        .contains("line 1, column 12: Unexpected character ('/' (code 47)): maybe a (non-standard)")
        .doesNotContain("Feature")
        .doesNotContain("parser");
    assertThat(refusal("[".repeat(2000) + "]".repeat(2000)))
        .contains("nesting depth (1001) exceeds the maximum allowed (1000)")
        .doesNotContain("StreamReadConstraints")
        .doesNotContain("`");
  }
}
