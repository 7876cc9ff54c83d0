package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.jcp.GrantChain;
import org.meshjava.journal.FileJournal;
import org.meshjava.journal.JournalEntry;
import org.meshjava.journal.internal.JournalFile;
import org.meshjava.receipt.tlog.Checkpoint;
import org.meshjava.receipt.tlog.LogException;
import org.meshjava.receipt.tlog.NoteVerifierKey;
import org.meshjava.receipt.tlog.SignedNote;
import org.meshjava.receipt.tlog.TreeHash;

/**
 * Notes a hostile caller hands {@link Steward#cosign} and {@link Steward#witnessCheckpoint}
 * (SPEC.md §60.4) that are none of the cases the rollback tests show: a witness line signed over
 * another checkpoint, a line under the witness's name by another key, a checkpoint of the empty
 * tree under the steward's key, a note carrying the most lines a note may. Each is a typed refusal
 * or a verdict; none is journalled, published or taken as a fork, and grants go on.
 */
class WitnessHostileNotesTest {
  final GrantFixture f = new GrantFixture();
  @TempDir Path dir;

  private final SigningKey witness = SigningKey.generate();
  private final NoteVerifierKey witnessKey =
      new NoteVerifierKey("witness.example", witness.verificationKey());

  private void serve(Steward s, GrantChain chain, String prompt) throws Exception {
    ServeRequest req = GrantFixture.request(prompt, 4, 10_000);
    s.serve(req, GrantFixture.payload(req), f.present(chain, req));
  }

  private static LogException.Reason reasonOf(Throwable t) {
    assertThat(t).isInstanceOf(LogException.class);
    return ((LogException) t).reason();
  }

  @Test
  void hostileCosignatures_areRefusedTyped_andChangeNothing() throws Exception {
    Path journal = dir.resolve("j");
    GrantChain chain = f.chain(1_000_000);
    try (Steward s = f.steward(FileJournal.open(journal)).witness(witnessKey).build()) {
      serve(s, chain, "0");
      SignedNote first = s.checkpoint().orElseThrow();
      serve(s, chain, "1");
      SignedNote latest = s.checkpoint().orElseThrow();

      // The witness's line over the earlier checkpoint, carried on the latest one.
      SignedNote overFirst = SignedNote.sign(first.text(), witnessKey.name(), witness);
      assertThat(
              reasonOf(catchThrowable(() -> s.cosign(latest.with(overFirst.signatures().get(0))))))
          .isEqualTo(LogException.Reason.BAD_SIGNATURE);

      // A line under the witness's name by another key: no line this log accepts.
      SignedNote impostor =
          SignedNote.sign(latest.text(), witnessKey.name(), SigningKey.generate());
      assertThat(
              reasonOf(catchThrowable(() -> s.cosign(latest.with(impostor.signatures().get(0))))))
          .isEqualTo(LogException.Reason.UNSIGNED);

      // The most lines a note may carry, none by the witness.
      SignedNote crowded = latest;
      while (crowded.signatures().size() < SignedNote.MAX_SIGNATURES) {
        crowded =
            crowded.with(
                SignedNote.sign(
                        latest.text(), "w" + crowded.signatures().size(), SigningKey.generate())
                    .signatures()
                    .get(0));
      }
      SignedNote full = crowded;
      assertThat(reasonOf(catchThrowable(() -> s.cosign(full))))
          .isEqualTo(LogException.Reason.UNSIGNED);
      assertThat(s.witnessCheckpoint(full)).isEqualTo(WitnessVerdict.HELD);

      // A checkpoint of the empty tree under the steward's key: never signed by a log, but held
      // (the empty tree is a prefix of every log) and no fork.
      SignedNote empty =
          new Checkpoint(Checkpoint.originOf(f.steward), 0, TreeHash.empty()).sign(f.stewardKey);
      assertThat(s.witnessCheckpoint(empty)).isEqualTo(WitnessVerdict.HELD);

      assertThat(s.checkpoint().orElseThrow()).isEqualTo(latest);
      assertThat(s.grantsSuspended()).isEmpty();
      serve(s, chain, "grants go on");
    }
    assertThat(JournalFile.read(journal).records())
        .noneMatch(
            r ->
                r.entry() instanceof JournalEntry.SuspendedByCheckpoint
                    || (r.entry() instanceof JournalEntry.Checkpoint c
                        && c.note().signatures().size() > 1));
  }
}
