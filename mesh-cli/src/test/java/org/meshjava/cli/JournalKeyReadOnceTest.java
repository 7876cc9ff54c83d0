package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;
import static org.meshjava.cli.MeshCommandTest.mesh;

import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.meshjava.cli.FileJournalTamperingTest.History;
import org.meshjava.cli.MeshCommandTest.Run;
import org.meshjava.core.crypto.SigningKey;

/**
 * {@code mesh journal verify|inspect|export --key FILE} reads the key file once: given as a pipe
 * ({@code --key <(cat steward.key)}), it yields its bytes to one read alone, and a second read
 * waits for a writer that never comes. verify read it to name the steward, again to check the
 * snapshot and again to choose the holder of the replay, so it waited for ever on a pipe the first
 * read had emptied. Here the key is a FIFO whose writer gives the key to its first reader and then
 * ends.
 */
class JournalKeyReadOnceTest {
  @TempDir Path tmp;

  // A second read of the key waits for a writer that never comes: the command hangs, and this
  // ends it (a guard against a hang, far above the seconds a run takes).
  @Timeout(value = 3, unit = TimeUnit.MINUTES)
  @ParameterizedTest
  @ValueSource(strings = {"verify", "inspect", "export"})
  void aKeyGivenAsAPipe_isReadOnce(String command) throws Exception {
    assumeTrue(!System.getProperty("os.name", "").startsWith("Windows"), "FIFOs are POSIX");
    History h = new History(tmp, SigningKey.generate(), "steward").serve(4, "granted");
    // Archived, so verify checks the snapshot and reads the segments as well as the live file.
    assertThat(mesh("journal", "archive", h.journal.toString()).code()).isZero();
    h.serve(4, "granted");
    Path key = FifoInputTest.fifo(tmp.resolve("key.fifo"));
    byte[] seed = Files.readAllBytes(h.keyFile);
    // The key goes to the first reader alone, as with a shell's <(cat steward.key).
    Thread.ofPlatform()
        .daemon()
        .start(
            () -> {
              try (OutputStream o = Files.newOutputStream(key)) {
                o.write(seed);
              } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
              }
            });
    Run run =
        command.equals("export")
            ? mesh(
                "journal",
                "export",
                h.journal.toString(),
                "--key",
                key.toString(),
                "--out",
                tmp.resolve("copy.journal").toString())
            : mesh("journal", command, h.journal.toString(), "--key", key.toString());
    assertThat(run.code()).as(run.err()).isZero();
  }
}
