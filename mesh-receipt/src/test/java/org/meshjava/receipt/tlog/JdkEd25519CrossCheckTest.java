package org.meshjava.receipt.tlog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.security.KeyFactory;
import java.security.PublicKey;
import java.security.Signature;
import java.security.spec.X509EncodedKeySpec;
import java.util.Arrays;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.core.identity.DidKey;
import org.meshjava.receipt.tlog.internal.MerkleTree;

/**
 * Our checkpoint signatures checked by an Ed25519 we did not write and do not sign with: the JDK's
 * own (SunEC), where mesh-core signs with Bouncy Castle's.
 */
class JdkEd25519CrossCheckTest {
  /** The DER prefix of an X.509 SubjectPublicKeyInfo for a raw Ed25519 key (RFC 8410). */
  private static final byte[] SPKI_PREFIX = HexFormat.of().parseHex("302a300506032b6570032100");

  @Test
  void checkpointSignature_verifiesWithTheJdksEd25519_andAnEditedBodyDoesNot() throws Exception {
    SigningKey key = SigningKey.generate();
    DidKey did = DidKey.of(key.verificationKey());
    MerkleTree tree = new MerkleTree();
    for (int i = 0; i < 5; i++) {
      tree.append(new byte[] {(byte) i});
    }
    SignedNote note = new Checkpoint(Checkpoint.originOf(did), 5, tree.root()).sign(key);
    NoteSignature line = note.signatures().get(0);

    PublicKey jdkKey = jdkKey(key);
    Signature verifier = Signature.getInstance("Ed25519");
    verifier.initVerify(jdkKey);
    verifier.update(note.text().getBytes(StandardCharsets.UTF_8));
    assertTrue(verifier.verify(line.signature()));

    // An edited body (a flipped signature bit can make R no point at all, which the JDK throws on).
    verifier.initVerify(jdkKey);
    verifier.update(note.text().replace("\n5\n", "\n6\n").getBytes(StandardCharsets.UTF_8));
    assertFalse(verifier.verify(line.signature()));

    assertEquals(Checkpoint.logKey(did).keyHash(), line.keyHash());
  }

  /** The steward's public key as the JDK's Ed25519 key (X.509 SubjectPublicKeyInfo). */
  static PublicKey jdkKey(SigningKey key) throws Exception {
    byte[] spki = Arrays.copyOf(SPKI_PREFIX, SPKI_PREFIX.length + 32);
    System.arraycopy(key.verificationKey().bytes(), 0, spki, SPKI_PREFIX.length, 32);
    return KeyFactory.getInstance("Ed25519").generatePublic(new X509EncodedKeySpec(spki));
  }
}
