package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The launcher's two waits, {@code MESH_JAVA_TIMEOUT_S} and {@code MESH_CLAIM_GRACE_S}, take a
 * number of seconds (to a twentieth); any other value is refused in one line, exit 2, before a JDK
 * is looked for, as {@code MESH_NO_BUILD}'s is.
 */
class LauncherWaitSettingsTest {
  @TempDir Path root;

  @Test
  void aWaitThatIsNoNumberOfSeconds_isRefusedInOneLine_exitTwo() throws Exception {
    Map<String, String> refused =
        Map.of("MESH_JAVA_TIMEOUT_S", "soon", "MESH_CLAIM_GRACE_S", "1.5.0");
    for (Map.Entry<String, String> setting : refused.entrySet()) {
      LauncherCopy.Ran r = LauncherCopy.run(root, Map.ofEntries(setting), "--version");

      assertThat(r.code()).as(setting + ": " + r.out()).isEqualTo(2);
      assertThat(r.out().strip().lines()).as(r.out()).hasSize(1);
      assertThat(r.out())
          .startsWith(
              "mesh: " + setting.getKey() + " is '" + setting.getValue() + "': set it to a number");
    }
  }
}
