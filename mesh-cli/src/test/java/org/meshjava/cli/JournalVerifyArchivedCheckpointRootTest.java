package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.meshjava.cli.MeshCommandTest.mesh;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.cli.FileJournalTamperingTest.History;
import org.meshjava.cli.MeshCommandTest.Run;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.core.identity.DidKey;
import org.meshjava.journal.FileJournal;
import org.meshjava.journal.FileSnapshotStore;
import org.meshjava.journal.JournalEntry;
import org.meshjava.journal.JournalSeal;
import org.meshjava.receipt.tlog.Checkpoint;
import org.meshjava.receipt.tlog.TreeHash;
import org.meshjava.steward.StewardStartException;

/**
 * {@code mesh journal verify} of an archived journal checks each checkpoint's root against the
 * receipts, as a start does (SPEC.md §65, §60.8), whether the archived records' segments are kept
 * (replayed from record 0) or gone (the log resumed from the snapshot's receipts and checkpoint).
 *
 * <p>Regression: on an archived journal verify checked the checkpoints' journal seals only, so a
 * checkpoint signed and sealed by the steward's own key whose root no receipts give passed verify
 * ("records ... form one chain and replay"), while a start refused the journal.
 */
@Tag("slow") // 2-11 s under load (serves, an archive, four verifies, a start); fast sample:
// LogReplayTest.aResumedCheck_*, the same check resumed from a snapshot's receipts
class JournalVerifyArchivedCheckpointRootTest {
  @TempDir Path dir;

  /**
   * Three granted serves, archived (segments kept), two more: the closing snapshot covers every
   * record.
   */
  private History archived() throws Exception {
    History h = new History(dir, SigningKey.generate(), "steward").serve(3, "granted");
    h.archive().serve(2, "later");
    return h;
  }

  /**
   * Appends a checkpoint of the five receipts, signed and sealed by the steward, with a root they
   * do not give; returns its record's sequence.
   */
  private static long forgeCheckpoint(History h) throws Exception {
    DidKey did = DidKey.of(h.key.verificationKey());
    Checkpoint forged = new Checkpoint(Checkpoint.originOf(did), 5, TreeHash.of(new byte[32]));
    try (FileJournal j = FileJournal.open(h.journal)) {
      return j.append(new JournalEntry.Checkpoint(forged.sign(h.key), JournalSeal.by(h.key))).seq();
    }
  }

  /** Verifies {@code h} with its segments moved aside (the snapshot then stands for them). */
  private static Run verifyWithoutSegments(History h) throws Exception {
    Path aside = h.dir.resolve("segments-aside");
    Files.move(h.segments(), aside);
    try {
      return mesh("journal", "verify", h.journal.toString());
    } finally {
      Files.move(aside, h.segments());
    }
  }

  /** One history for both paths: a journal's serves and archive are the test's cost. */
  @Test
  void aForgedRootAfterTheSnapshot_isRefused_withTheSegmentsKeptOrGone_asByAStart()
      throws Exception {
    History h = archived();
    Run whole = mesh("journal", "verify", h.journal.toString());
    assertThat(whole.code()).as(whole.err()).isZero();
    assertThat(whole.out())
        .containsPattern("[0-9]+ signed checkpoints? reproduced by its receipts");
    Run resumed = verifyWithoutSegments(h);
    assertThat(resumed.code()).as(resumed.err()).isZero();
    assertThat(resumed.out())
        .contains("follow the snapshot")
        .contains("1 signed checkpoint reproduced by its receipts");

    long forged = forgeCheckpoint(h);
    for (Run bad :
        List.of(mesh("journal", "verify", h.journal.toString()), verifyWithoutSegments(h))) {
      assertThat(bad.code()).as(bad.out()).isEqualTo(1);
      assertThat(bad.err())
          .startsWith("mesh journal verify: ")
          .contains("journal record " + forged)
          .contains("records a checkpoint the journal's receipts do not reproduce");
    }
    // As a start refuses it.
    assertThatThrownBy(
            () ->
                ReferenceSteward.builder(h.key, FileJournal.open(h.journal))
                    .snapshots(FileSnapshotStore.beside(h.journal))
                    .build()
                    .close())
        .isInstanceOf(StewardStartException.class)
        .hasMessageContaining("journal record " + forged);
  }
}
