package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.jcp.GrantChain;
import org.meshjava.journal.FileJournal;
import org.meshjava.receipt.tlog.Checkpoint;
import org.meshjava.receipt.tlog.LogException;
import org.meshjava.receipt.tlog.NoteVerifierKey;
import org.meshjava.receipt.tlog.SignedNote;
import org.meshjava.receipt.tlog.TreeHash;

/**
 * {@link Steward#cosign} refuses two kinds of {@code CHECKPOINT_MISMATCH}, and says which: a
 * checkpoint its own key signed that its log does not hold (evidence of a rollback or a fork,
 * SPEC.md §60.4) and any other checkpoint than the latest. {@code POST /v1/mesh/checkpoint} answers
 * the two differently from this alone, without checking the note's signature a second time first.
 */
class CosignMismatchTest {
  final GrantFixture f = new GrantFixture();
  @TempDir Path dir;

  private void serve(Steward s, GrantChain chain, String prompt) throws Exception {
    ServeRequest req = GrantFixture.request(prompt, 4, 10_000);
    s.serve(req, GrantFixture.payload(req), f.present(chain, req));
  }

  @Test
  void cosign_ofACheckpointItsKeySignedThatItsLogDoesNotHold_isNotHeld_andSuspendsGrants()
      throws Exception {
    try (Steward s = f.steward(FileJournal.open(dir.resolve("j"))).build()) {
      serve(s, f.chain(1_000_000), "0");
      SignedNote larger =
          new Checkpoint(Checkpoint.originOf(f.steward), 9, TreeHash.of(new byte[32]))
              .sign(f.stewardKey);
      assertThatThrownBy(() -> s.cosign(larger))
          .isInstanceOfSatisfying(
              LogException.class,
              e -> {
                assertThat(e.reason()).isEqualTo(LogException.Reason.CHECKPOINT_MISMATCH);
                assertThat(e.mismatch()).contains(LogException.Mismatch.NOT_HELD);
              });
      assertThat(s.grantsSuspended()).isPresent();
    }
  }

  @Test
  void cosign_ofAnEarlierCheckpointTheLogHolds_isAnotherCheckpoint_andSuspendsNothing()
      throws Exception {
    try (Steward s = f.steward(FileJournal.open(dir.resolve("j"))).build()) {
      GrantChain chain = f.chain(1_000_000);
      serve(s, chain, "0");
      SignedNote first = s.checkpoint().orElseThrow();
      serve(s, chain, "1");
      s.checkpoint().orElseThrow();
      assertThatThrownBy(() -> s.cosign(first))
          .isInstanceOfSatisfying(
              LogException.class,
              e ->
                  assertThat(e.mismatch())
                      .isEqualTo(Optional.of(LogException.Mismatch.OTHER_CHECKPOINT)));
      assertThat(s.grantsSuspended()).isEmpty();
    }
  }

  /**
   * A witness's cosignature of the latest checkpoint is taken though receipts were served after it:
   * only a newer checkpoint the journal was handed makes it an older one, not a log that grew.
   */
  @Test
  void cosign_ofTheLatestCheckpoint_afterMoreServes_isTaken() throws Exception {
    SigningKey witness = SigningKey.generate();
    NoteVerifierKey witnessKey = new NoteVerifierKey("witness.example", witness.verificationKey());
    try (Steward s = f.steward(FileJournal.open(dir.resolve("j"))).witness(witnessKey).build()) {
      GrantChain chain = f.chain(1_000_000);
      serve(s, chain, "0");
      SignedNote latest = s.checkpoint().orElseThrow();
      serve(s, chain, "1");
      SignedNote line = SignedNote.sign(latest.text(), witnessKey.name(), witness);
      SignedNote cosigned = s.cosign(latest.with(line.signatures().get(0)));
      assertThat(Checkpoint.parse(cosigned.text()).size()).isEqualTo(1);
      cosigned.verify(witnessKey);
    }
  }
}
