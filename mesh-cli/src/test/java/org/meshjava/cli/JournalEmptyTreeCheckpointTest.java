package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.meshjava.cli.MeshCommandTest.mesh;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.cli.MeshCommandTest.Run;
import org.meshjava.core.ContentId;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.core.identity.DidKey;
import org.meshjava.journal.FileJournal;
import org.meshjava.journal.JournalEntry;
import org.meshjava.journal.JournalSeal;
import org.meshjava.receipt.tlog.Checkpoint;
import org.meshjava.receipt.tlog.TreeHash;
import org.meshjava.steward.StewardStartException;

/**
 * A journalled checkpoint of the empty tree, signed and sealed by the steward's own key, is refused
 * by {@code mesh journal verify} and by a start alike (SPEC 65): a steward never signs one, so a
 * journal holding one is not one it wrote.
 *
 * <p>Regression: after receipts both accepted it, and before any receipt a start refused it
 * ("records a checkpoint before any receipt") while verify accepted it, though SPEC 65 says verify
 * runs the start's check.
 */
class JournalEmptyTreeCheckpointTest {
  @TempDir Path dir;

  private final SigningKey key = SigningKey.fromSeedHex("45".repeat(32));
  private final DidKey did = DidKey.of(key.verificationKey());

  /** A journal of {@code receipts} ungranted receipts, then the empty tree's checkpoint. */
  private Path journal(int receipts) throws Exception {
    Path file = dir.resolve("steward.journal");
    try (FileJournal j = FileJournal.open(file)) {
      for (int i = 0; i < receipts; i++) {
        j.append(
            new JournalEntry.Sealed(
                i, ContentId.ofBytes(("receipt " + i).getBytes(StandardCharsets.US_ASCII))));
      }
      Checkpoint empty = new Checkpoint(Checkpoint.originOf(did), 0, TreeHash.empty());
      j.append(new JournalEntry.Checkpoint(empty.sign(key), JournalSeal.by(key)));
    }
    return file;
  }

  private void assertRefusedByVerifyAndStart(Path file, int record) {
    Run r = mesh("journal", "verify", "--steward", did.value(), file.toString());
    assertThat(r.code()).as(r.out() + r.err()).isEqualTo(1);
    assertThat(r.err()).contains("journal record " + record).contains("empty tree");
    assertThatThrownBy(() -> ReferenceSteward.builder(key, FileJournal.open(file)).build().close())
        .isInstanceOf(StewardStartException.class)
        .hasMessageContaining("journal record " + record);
  }

  @Test
  void afterReceipts_isRefused() throws Exception {
    assertRefusedByVerifyAndStart(journal(2), 2);
  }

  @Test
  void beforeAnyReceipt_isRefused_byVerifyAsByAStart() throws Exception {
    assertRefusedByVerifyAndStart(journal(0), 0);
  }
}
