package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.jcp.GrantChain;
import org.meshjava.journal.FileJournal;
import org.meshjava.receipt.tlog.LogException;
import org.meshjava.receipt.tlog.NoteVerifierKey;
import org.meshjava.receipt.tlog.SignedNote;

/**
 * A witness checking and cosigning while serves seal receipts (and the cadence signs checkpoints)
 * never sees its own steward's checkpoint as one the log does not hold (SPEC.md §60.4): that would
 * suspend every grant over a race. A cosignature of a checkpoint a newer one replaced meanwhile is
 * refused as another checkpoint, and nothing else.
 */
class WitnessWhileServingTest {
  final GrantFixture f = new GrantFixture();
  @TempDir Path dir;

  @Test
  void witnessingWhileServing_holdsEveryCheckpoint_andSuspendsNothing() throws Exception {
    SigningKey witness = SigningKey.generate();
    NoteVerifierKey witnessKey = new NoteVerifierKey("witness.example", witness.verificationKey());
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try (Steward s =
        f.steward(FileJournal.open(dir.resolve("j")))
            .witness(witnessKey)
            .checkpointEvery(2)
            .build()) {
      GrantChain chain = f.chain(100_000_000);
      Future<?> served =
          pool.submit(
              () -> {
                for (int i = 0; i < 12; i++) {
                  ServeRequest req = GrantFixture.request("while witnessing " + i, 2, 10_000);
                  s.serve(req, GrantFixture.payload(req), f.present(chain, req));
                }
                return null;
              });
      while (!served.isDone()) {
        Optional<SignedNote> latest = s.checkpoint();
        if (latest.isPresent()) {
          witnessAndCosign(s, latest.get(), witnessKey, witness);
        }
      }
      served.get(60, TimeUnit.SECONDS);
      assertThat(s.grantsSuspended()).isEmpty();
      SignedNote last = s.checkpoint().orElseThrow();
      assertThat(witnessAndCosign(s, last, witnessKey, witness)).isTrue();
    } finally {
      pool.shutdownNow();
    }
  }

  /** Witnesses {@code latest} and cosigns it: whether the cosignature was taken. */
  private static boolean witnessAndCosign(
      Steward s, SignedNote latest, NoteVerifierKey witnessKey, SigningKey witness)
      throws Exception {
    assertThat(s.witnessCheckpoint(latest)).isEqualTo(WitnessVerdict.HELD);
    SignedNote line = SignedNote.sign(latest.text(), witnessKey.name(), witness);
    try {
      SignedNote taken = s.cosign(latest.with(line.signatures().get(0)));
      assertThat(taken.text()).isEqualTo(latest.text());
      return true;
    } catch (LogException e) {
      // A newer checkpoint was signed between the two calls.
      assertThat(e.mismatch()).contains(LogException.Mismatch.OTHER_CHECKPOINT);
      return false;
    }
  }
}
