package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A console asked for on the API's own port is a clash among the flags, refused before anything
 * starts: no key is read, no journal opened and no backend built first (the default backends load a
 * model), so the refusal is the only line and names nothing but the clash.
 */
class ServeConsoleClashFirstTest {
  @TempDir Path tmp;

  @Test
  void aConsoleOnTheAPIsPort_isRefusedBeforeTheKeyOrJournalIsTouched() {
    Path journal = tmp.resolve("steward.journal");
    MeshCommandTest.Run r =
        MeshCommandTest.mesh(
            "serve",
            "--key",
            tmp.resolve("missing.key").toString(),
            "--journal",
            journal.toString(),
            "--port",
            "8081",
            "--console");
    assertThat(r.code()).as(r.err()).isEqualTo(1);
    assertThat(r.err())
        .isEqualTo(
            "mesh serve: the console's default port 8081 is the API's port too; give the console"
                + " another with --console-port (0 picks a free one)\n");
    assertThat(journal).doesNotExist();
  }
}
