package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.journal.testing.ChildJava;

/**
 * A command whose standard output cannot be written ({@code > report.txt} on a full disk) exited 0
 * with its output lost or cut short: {@link System#out} swallows write errors. It now says so in
 * one line and exits 1; a reader that went away ({@code | head}) stays no error.
 */
class StandardOutputFullTest {
  @TempDir Path tmp;

  @Test
  void keyShow_toAFullDevice_exitsOne_sayingSo() throws Exception {
    assumeTrue(Files.exists(Path.of("/dev/full")), "Linux /dev/full only");
    Path key = tmp.resolve("steward.key");
    assertThat(MeshCommandTest.mesh("key", "generate", "--out", key.toString()).code()).isZero();
    List<String> cmd = new ArrayList<>(List.of("sh", "-c", "exec \"$@\" >/dev/full", "sh"));
    cmd.addAll(ChildJava.command(Mesh.class, "key", "show", "--key", key.toString()));
    Process p = new ProcessBuilder(cmd).start();
    String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(err).isEqualTo(1);
    assertThat(err.strip())
        .startsWith("mesh: cannot write standard output: No space left on device")
        .endsWith("what was printed is incomplete");
  }

  @Test
  void aReaderThatWentAway_isNoFailure_butAnyOtherWriteErrorIs() {
    assertThat(failureAfterWriting("Broken pipe")).isNull();
    assertThat(failureAfterWriting("Input/output error"))
        .isEqualTo(
            "cannot write standard output: Input/output error; what was printed is incomplete");
  }

  private static String failureAfterWriting(String error) {
    StandardOutput out =
        new StandardOutput(
            new OutputStream() {
              @Override
              public void write(int b) throws IOException {
                throw new IOException(error);
              }
            });
    try {
      out.write(new byte[] {1, 2}, 0, 2);
    } catch (IOException expected) {
      // Remembered for failure().
    }
    return out.failure();
  }
}
