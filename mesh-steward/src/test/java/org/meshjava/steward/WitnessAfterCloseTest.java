package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.journal.FileJournal;
import org.meshjava.receipt.tlog.Checkpoint;
import org.meshjava.receipt.tlog.LogException;
import org.meshjava.receipt.tlog.NoteVerifierKey;
import org.meshjava.receipt.tlog.SignedNote;
import org.meshjava.receipt.tlog.TreeHash;

/**
 * A witness may still call a steward that closed (a server stopping answers what it was asked):
 * every answer is a verdict or a typed refusal, never an unchecked throw, and nothing is written to
 * the journal the close released.
 */
class WitnessAfterCloseTest {
  final GrantFixture f = new GrantFixture();
  @TempDir Path dir;

  @Test
  void afterClose_witnessingAndCosigning_answerTyped() throws Exception {
    SigningKey witness = SigningKey.generate();
    NoteVerifierKey witnessKey = new NoteVerifierKey("witness.example", witness.verificationKey());
    Steward s = f.steward(FileJournal.open(dir.resolve("j"))).witness(witnessKey).build();
    ServeRequest req = GrantFixture.request("before the close", 4, 10_000);
    s.serve(req, GrantFixture.payload(req), f.present(f.chain(1_000_000), req));
    s.close();
    SignedNote latest = s.checkpoint().orElseThrow();

    assertThat(s.witnessCheckpoint(latest)).isEqualTo(WitnessVerdict.HELD);
    SignedNote line = SignedNote.sign(latest.text(), witnessKey.name(), witness);
    Throwable cosigned = catchThrowable(() -> s.cosign(latest.with(line.signatures().get(0))));
    assertThat(cosigned)
        .isInstanceOfSatisfying(
            ServeException.class,
            e -> assertThat(e.reason()).isEqualTo(ServeException.Reason.NOT_RECORDED));
    assertThat(s.checkpoint().orElseThrow()).isEqualTo(latest);

    // A forked checkpoint shown after the close is still answered, and still refused to cosign.
    SignedNote larger =
        new Checkpoint(Checkpoint.originOf(f.steward), 9, TreeHash.of(new byte[32]))
            .sign(f.stewardKey);
    assertThat(s.witnessCheckpoint(larger)).isEqualTo(WitnessVerdict.NOT_HELD);
    assertThat(catchThrowable(() -> s.cosign(larger)))
        .isInstanceOfSatisfying(
            LogException.class,
            e -> assertThat(e.mismatch()).contains(LogException.Mismatch.NOT_HELD));
  }
}
