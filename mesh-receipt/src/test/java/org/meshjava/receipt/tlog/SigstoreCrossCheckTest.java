package org.meshjava.receipt.tlog;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sigstore.encryption.signers.Verifier;
import dev.sigstore.encryption.signers.Verifiers;
import dev.sigstore.merkle.InclusionProofVerificationException;
import dev.sigstore.merkle.InclusionProofVerifier;
import dev.sigstore.rekor.client.Checkpoints;
import dev.sigstore.rekor.client.RekorEntry;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.meshjava.core.ContentId;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.core.identity.DidKey;
import org.meshjava.receipt.tlog.internal.TransparencyLog;

/**
 * Our log checked by an implementation we did not write (issue 16): sigstore-java, the Sigstore
 * project's Java client, parses our C2SP checkpoint with its own note parser, verifies its Ed25519
 * signature with its own verifier, and verifies our inclusion proofs with its RFC 9162 verifier
 * (the one its Rekor client runs on every log entry). Tampered proofs and bodies must fail there
 * too.
 */
class SigstoreCrossCheckTest {
  private static final int RECEIPTS = 13;

  @Test
  void checkpointAndEveryInclusionProof_verifyWithSigstoreJava_andTamperedOnesDoNot()
      throws Exception {
    SigningKey key = SigningKey.fromSeed(new byte[32]);
    DidKey did = DidKey.of(key.verificationKey());
    TransparencyLog log = new TransparencyLog(key, 0, Set.of());
    List<ContentId> ids = new ArrayList<>();
    for (int i = 0; i < RECEIPTS; i++) {
      ids.add(ContentId.ofBytes(("receipt " + i).getBytes(StandardCharsets.UTF_8)));
      log.append(i, ids.get(i));
    }
    SignedNote note = log.signNext().orElseThrow();

    // Their parser reads our note: origin, size, root and the signature line.
    RekorEntry.Checkpoint theirs = Checkpoints.from(note.encoded());
    assertEquals(did.value(), theirs.getOrigin());
    assertEquals(RECEIPTS, theirs.getSize());
    assertEquals(log.root(RECEIPTS).base64(), theirs.getBase64Hash());
    assertEquals(1, theirs.getSignatures().size());
    RekorEntry.CheckpointSignature line = theirs.getSignatures().get(0);
    assertEquals(did.value(), line.getIdentity());
    assertArrayEquals(
        ByteBuffer.allocate(4).putInt(log.logKey().keyHash()).array(), line.getKeyHint());

    // Their Ed25519 verifier accepts our signature over the body they parsed, and only that body.
    Verifier verifier = Verifiers.newVerifier(JdkEd25519CrossCheckTest.jdkKey(key));
    byte[] body = theirs.getSignedData().getBytes(StandardCharsets.UTF_8);
    assertArrayEquals(note.text().getBytes(StandardCharsets.UTF_8), body);
    assertTrue(verifier.verify(body, line.getSignature()));
    byte[] edited =
        theirs
            .getSignedData()
            .replace("\n" + RECEIPTS + "\n", "\n" + (RECEIPTS + 1) + "\n")
            .getBytes(StandardCharsets.UTF_8);
    assertFalse(verifier.verify(edited, line.getSignature()));

    // Their RFC 9162 verifier accepts our proof of every receipt against the root they parsed.
    byte[] root = Base64.getDecoder().decode(theirs.getBase64Hash());
    for (int i = 0; i < RECEIPTS; i++) {
      InclusionProof proof = log.inclusionProof(i, RECEIPTS);
      byte[] leaf = InclusionProof.leafHash(ids.get(i)).bytes();
      InclusionProofVerifier.verify(leaf, i, RECEIPTS, hashes(proof), root);
    }

    // ... and refuses a proof with one hash altered, a wrong index, or another receipt's leaf.
    InclusionProof proof = log.inclusionProof(5, RECEIPTS);
    byte[] leaf = InclusionProof.leafHash(ids.get(5)).bytes();
    List<byte[]> altered = hashes(proof);
    altered.get(1)[0] ^= 1;
    assertThrows(
        InclusionProofVerificationException.class,
        () -> InclusionProofVerifier.verify(leaf, 5, RECEIPTS, altered, root));
    assertThrows(
        InclusionProofVerificationException.class,
        () -> InclusionProofVerifier.verify(leaf, 4, RECEIPTS, hashes(proof), root));
    byte[] other = InclusionProof.leafHash(ids.get(6)).bytes();
    assertThrows(
        InclusionProofVerificationException.class,
        () -> InclusionProofVerifier.verify(other, 5, RECEIPTS, hashes(proof), root));
  }

  private static List<byte[]> hashes(InclusionProof proof) {
    List<byte[]> out = new ArrayList<>();
    proof.path().forEach(h -> out.add(h.bytes()));
    return out;
  }
}
