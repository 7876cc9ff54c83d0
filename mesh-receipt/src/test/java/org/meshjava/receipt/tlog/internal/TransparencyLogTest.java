package org.meshjava.receipt.tlog.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.meshjava.core.ContentId;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.receipt.tlog.Checkpoint;
import org.meshjava.receipt.tlog.InclusionProof;
import org.meshjava.receipt.tlog.LogException;
import org.meshjava.receipt.tlog.NoteSignature;
import org.meshjava.receipt.tlog.NoteVerifierKey;
import org.meshjava.receipt.tlog.SignedNote;

class TransparencyLogTest {
  private static final SigningKey STEWARD = seeded(1);
  private static final SigningKey WITNESS = seeded(2);
  private static final NoteVerifierKey WITNESS_KEY =
      new NoteVerifierKey("witness.example/w", WITNESS.verificationKey());

  private static SigningKey seeded(int b) {
    byte[] seed = new byte[32];
    seed[0] = (byte) b;
    return SigningKey.fromSeed(seed);
  }

  private static ContentId envelope(int i) {
    return ContentId.ofBytes(("envelope " + i).getBytes(StandardCharsets.UTF_8));
  }

  private static TransparencyLog logOf(int n) {
    TransparencyLog log = new TransparencyLog(STEWARD, 0, Set.of(WITNESS_KEY));
    for (int i = 0; i < n; i++) {
      log.append(i, envelope(i));
    }
    return log;
  }

  private static SignedNote signed(TransparencyLog log) throws LogException {
    SignedNote note = log.signNext().orElseThrow();
    log.publish(note);
    return note;
  }

  @Test
  void cosignature_byAConfiguredWitness_isStoredAndServedWithTheCheckpoint() throws Exception {
    TransparencyLog log = logOf(5);
    SignedNote checkpoint = signed(log);
    SignedNote witnessed =
        checkpoint.with(
            SignedNote.sign(checkpoint.text(), WITNESS_KEY.name(), WITNESS).signatures().get(0));
    SignedNote served = log.cosigned(SignedNote.parse(witnessed.encoded()));
    log.publish(served);
    assertEquals(served, log.latest().orElseThrow());
    SignedNote reread = SignedNote.parse(served.encoded());
    reread.verify(log.logKey());
    reread.verify(WITNESS_KEY);
    assertEquals(2, reread.signatures().size());
  }

  /**
   * Regression: a witness whose signer picks a random nonce gives a new, valid line each time it
   * cosigns one checkpoint, and every one was added beside the last ("expected: 2 but was: 3"): the
   * checkpoint grew, and was journalled again, per call, until past {@link
   * SignedNote#MAX_SIGNATURES} it threw unchecked. One line per witness is kept, the first; a later
   * one is still checked, so a forgery is refused.
   */
  @Test
  void cosignature_signedAgainByTheSameWitness_keepsOneLinePerWitness() throws Exception {
    HedgedEd25519 hedged = new HedgedEd25519(7);
    NoteVerifierKey hedgedKey = hedged.key("hedged.witness.example");
    TransparencyLog log = new TransparencyLog(STEWARD, 0, Set.of(WITNESS_KEY, hedgedKey));
    log.append(0, envelope(0));
    SignedNote checkpoint = signed(log);
    SignedNote served = checkpoint;
    NoteSignature again = null;
    for (int i = 0; i < 2; i++) {
      again = hedged.sign(checkpoint.text(), hedgedKey);
      SignedNote cosigned = checkpoint.with(again);
      cosigned.verify(hedgedKey);
      served = log.cosigned(cosigned);
      log.publish(served);
    }
    assertEquals(2, served.signatures().size());
    served.verify(hedgedKey);
    byte[] bytes = again.signature();
    bytes[40] ^= 1;
    SignedNote forged = checkpoint.with(new NoteSignature(again.name(), again.keyHash(), bytes));
    assertEquals(
        LogException.Reason.BAD_SIGNATURE,
        assertThrows(LogException.class, () -> log.cosigned(forged)).reason());
  }

  @Test
  void cosignature_forged_orByAnUnknownKey_orOnAnotherCheckpoint_isRefused() throws Exception {
    TransparencyLog log = logOf(5);
    SignedNote checkpoint = signed(log);
    NoteSignature genuine =
        SignedNote.sign(checkpoint.text(), WITNESS_KEY.name(), WITNESS).signatures().get(0);
    byte[] bytes = genuine.signature();
    bytes[0] ^= 1;
    SignedNote forged =
        checkpoint.with(new NoteSignature(genuine.name(), genuine.keyHash(), bytes));
    assertEquals(
        LogException.Reason.BAD_SIGNATURE,
        assertThrows(LogException.class, () -> log.cosigned(forged)).reason());
    SignedNote stranger =
        checkpoint.with(
            SignedNote.sign(checkpoint.text(), "stranger", seeded(3)).signatures().get(0));
    assertEquals(
        LogException.Reason.UNSIGNED,
        assertThrows(LogException.class, () -> log.cosigned(stranger)).reason());
    log.append(5, envelope(5));
    SignedNote older = checkpoint.with(genuine);
    signed(log);
    assertEquals(
        LogException.Reason.CHECKPOINT_MISMATCH,
        assertThrows(LogException.class, () -> log.cosigned(older)).reason());
    assertEquals(1, log.latest().orElseThrow().signatures().size());
  }

  @Test
  void restore_reproducesTheSignedCheckpoint_andRefusesAnEditedLeaf() throws Exception {
    TransparencyLog original = logOf(9);
    SignedNote checkpoint = signed(original);
    TransparencyLog rebuilt = logOf(12);
    rebuilt.publish(checkpoint);
    assertEquals(checkpoint, rebuilt.latest().orElseThrow());

    TransparencyLog edited = new TransparencyLog(STEWARD, 0, Set.of());
    for (int i = 0; i < 9; i++) {
      edited.append(i, envelope(i == 4 ? 99 : i));
    }
    assertEquals(
        LogException.Reason.CHECKPOINT_MISMATCH,
        assertThrows(LogException.class, () -> edited.publish(checkpoint)).reason());
    TransparencyLog cut = logOf(8);
    assertEquals(
        LogException.Reason.CHECKPOINT_MISMATCH,
        assertThrows(LogException.class, () -> cut.publish(checkpoint)).reason());
    TransparencyLog otherKey = new TransparencyLog(seeded(4), 0, Set.of());
    for (int i = 0; i < 9; i++) {
      otherKey.append(i, envelope(i));
    }
    assertEquals(
        LogException.Reason.UNSIGNED,
        assertThrows(LogException.class, () -> otherKey.publish(checkpoint)).reason());
  }

  @Test
  void proofs_byReceiptSequence_verifyAgainstTheSignedCheckpoint() throws Exception {
    TransparencyLog log = new TransparencyLog(STEWARD, 40, Set.of());
    for (int i = 40; i < 47; i++) {
      log.append(i, envelope(i));
    }
    Checkpoint cp = Checkpoint.open(signed(log), log.logKey());
    InclusionProof p = log.inclusionProof(43, cp.size());
    p.verify(InclusionProof.leafHash(envelope(43)), cp.root());
    assertTrue(log.signNext().isEmpty());
    assertTrue(new TransparencyLog(STEWARD, 0, Set.of()).signNext().isEmpty());
    assertThrows(IllegalStateException.class, () -> log.append(49, envelope(49)));
    assertEquals(List.of(), log.consistencyProof(7, 7).path());
  }

  /**
   * What a steward saves in a snapshot and adopts back (the packed levels) is the log's tree, and
   * levels saved by a log that starts at another sequence are refused.
   */
  @Test
  void packedLevels_areTheTreesLevels_andAreAdoptedOnlyByALogStartingAtTheSameSequence()
      throws Exception {
    TransparencyLog log = logOf(9);
    MerkleTree tree = new MerkleTree();
    for (int i = 0; i < 9; i++) {
      tree.append(envelope(i).bytes());
    }
    assertTrue(java.util.Arrays.equals(tree.packedLevels(9), log.packedLevels(9)));
    assertTrue(log.heapBytes() >= 9 * 32, "the log's leaf hashes are on the heap");

    MerkleTree saved = MerkleTree.ofLevels(9, log.packedLevels(9));
    assertEquals(false, log.adoptLevels(1, saved), "saved by a log that starts at 1");
    assertEquals(true, log.adoptLevels(0, saved));
    assertEquals(tree.root(), log.root(9));
  }
}
