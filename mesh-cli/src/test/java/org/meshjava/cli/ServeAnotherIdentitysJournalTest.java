package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.cli.MeshCommandTest.Run;
import org.meshjava.core.Fidelity;
import org.meshjava.core.PromptText;
import org.meshjava.core.ServeRequest;
import org.meshjava.energy.EstimatorMeter;
import org.meshjava.engine.ReferenceEngine;
import org.meshjava.journal.FileJournal;
import org.meshjava.steward.Steward;

/**
 * Regression: {@code mesh serve} without {@code --key} on a journal an earlier keyless start wrote
 * was refused with the library's advice, "open it with that key (Steward.builder(key); …)": a
 * builder method its user never sees, for a key that never existed outside the earlier process. The
 * steward's words now name no interface, and {@code mesh serve} says which flag gives a key.
 */
class ServeAnotherIdentitysJournalTest {
  @TempDir Path tmp;

  @Test
  void serveWithoutAKey_onAnEarlierKeylessStartsJournal_isToldToPassAKey_orNameANewJournal()
      throws Exception {
    Path journal = tmp.resolve("steward.journal");
    try (Steward once =
        Steward.ephemeral()
            .meter(new EstimatorMeter())
            .journal(FileJournal.open(journal))
            .backend(ReferenceEngine.builder().name("ref").build())
            .build()) {
      PromptText prompt = PromptText.of("sealed by a keyless run");
      once.serve(ServeRequest.generation(prompt, 4, Fidelity.F0, 1_000_000), prompt);
    }

    Run r = CliErrorsTest.serveOnATakenPort(journal);

    assertThat(r.code()).as(r.err()).isEqualTo(1);
    assertThat(r.err())
        .contains("mesh serve: journal " + journal + " cannot be replayed")
        .contains("not by this steward")
        .contains("pass --key with the key that wrote it, or name a new journal")
        .doesNotContain("Steward.builder")
        .doesNotContain("cannot listen");
  }
}
