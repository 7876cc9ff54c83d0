package org.meshjava.receipt.tlog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Base64;
import org.junit.jupiter.api.Test;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.receipt.tlog.internal.MerkleTree;

class SignedNoteTest {
  // The example key and note of Go's golang.org/x/mod/sumdb/note tests: a vector we did not make.
  private static final String GO_VERIFIER_KEY =
      "PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW";
  private static final String GO_SIGNER_MATERIAL = "AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz";
  private static final String GO_TEXT =
      "If you think cryptography is the answer to your problem,\n"
          + "then you don't know what your problem is.\n";
  private static final String GO_NOTE =
      GO_TEXT
          + "\n\u2014 PeterNeumann x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=\n";

  private static SigningKey goKey() {
    byte[] material = Base64.getDecoder().decode(GO_SIGNER_MATERIAL);
    assertEquals(1, material[0]);
    return SigningKey.fromSeed(Arrays.copyOfRange(material, 1, material.length));
  }

  @Test
  void sign_reproducesGoSumdbNoteByteForByte() throws Exception {
    SigningKey key = goKey();
    assertEquals(
        GO_VERIFIER_KEY, new NoteVerifierKey("PeterNeumann", key.verificationKey()).encoded());
    assertEquals(GO_NOTE, SignedNote.sign(GO_TEXT, "PeterNeumann", key).encoded());
  }

  @Test
  void goNote_parsesAndVerifies_andAnEditedTextIsRefused() throws Exception {
    NoteVerifierKey key = NoteVerifierKey.parse(GO_VERIFIER_KEY);
    SignedNote note = SignedNote.parse(GO_NOTE);
    note.verify(key);
    assertEquals(GO_NOTE, note.encoded());
    SignedNote edited = SignedNote.parse(GO_NOTE.replace("cryptography", "cryptographY"));
    assertEquals(
        LogException.Reason.BAD_SIGNATURE,
        assertThrows(LogException.class, () -> edited.verify(key)).reason());
  }

  @Test
  void signatureLine_spelledOtherwiseThanItsSignerWroteIt_isRefusedNamingTheLine() {
    // "JnAM=" ends in a digit whose two low bits are unused; "JnAN=" reads as the same bytes.
    for (String other : new String[] {"JnAM", "JnAN="}) {
      String note = GO_NOTE.replace("JnAM=", other);
      LogException e = assertThrows(LogException.class, () -> SignedNote.parse(note));
      assertEquals(LogException.Reason.MALFORMED_NOTE, e.reason());
      assertTrue(e.getMessage().contains(other), e.getMessage());
    }
  }

  @Test
  void verifierKey_whoseHashDoesNotMatch_isRefused() {
    String mangled = GO_VERIFIER_KEY.replace("c74f20a3", "c74f20a4");
    assertEquals(
        LogException.Reason.MALFORMED_KEY,
        assertThrows(LogException.class, () -> NoteVerifierKey.parse(mangled)).reason());
  }

  @Test
  void malformedNotes_areRefusedWithTheirReason() {
    for (String bad :
        new String[] {
          GO_TEXT,
          GO_TEXT + "\n",
          GO_TEXT + "\n- PeterNeumann AAAA\n",
          GO_TEXT + "\n\u2014 PeterNeumann !!!!\n",
          GO_TEXT + "\n\u2014 PeterNeumann AAAA",
          "a\u0007\n\n\u2014 x AAAAAAAA\n",
          "a\ud800\n\n\u2014 x AAAAAAAA\n",
          "\n\n\u2014 x\ud800 AAAAAAAA\n",
        }) {
      assertEquals(
          LogException.Reason.MALFORMED_NOTE,
          assertThrows(LogException.class, () -> SignedNote.parse(bad), bad).reason(),
          bad);
    }
  }

  @Test
  void cosignature_byAWitnessKey_verifiesBesideTheLogSignature_andAForgeryIsRefused()
      throws Exception {
    SigningKey log = SigningKey.fromSeed(new byte[32]);
    byte[] witnessSeed = new byte[32];
    witnessSeed[0] = 7;
    SigningKey witness = SigningKey.fromSeed(witnessSeed);
    NoteVerifierKey witnessKey =
        new NoteVerifierKey("witness.example/w1", witness.verificationKey());
    String text = "origin\n1\n" + TreeHash.leaf(new byte[0]).base64() + "\n";
    SignedNote logged = SignedNote.sign(text, "origin", log);
    NoteSignature cosignature =
        SignedNote.sign(text, witnessKey.name(), witness).signatures().get(0);
    SignedNote both = SignedNote.parse(logged.with(cosignature).encoded());
    both.verify(new NoteVerifierKey("origin", log.verificationKey()));
    both.verify(witnessKey);

    byte[] forgedBytes = cosignature.signature();
    forgedBytes[5] ^= 1;
    SignedNote forged =
        logged.with(new NoteSignature(witnessKey.name(), witnessKey.keyHash(), forgedBytes));
    assertEquals(
        LogException.Reason.BAD_SIGNATURE,
        assertThrows(LogException.class, () -> forged.verify(witnessKey)).reason());

    // another key signing under the witness's name carries another key hash: not the witness
    SignedNote impostor =
        logged.with(SignedNote.sign(text, witnessKey.name(), log).signatures().get(0));
    assertEquals(
        LogException.Reason.UNSIGNED,
        assertThrows(LogException.class, () -> impostor.verify(witnessKey)).reason());

    // the witness's genuine signature over another text, pasted onto this note
    NoteSignature elsewhere =
        SignedNote.sign("origin\n2\n" + text.split("\n")[2] + "\n", witnessKey.name(), witness)
            .signatures()
            .get(0);
    assertEquals(
        LogException.Reason.BAD_SIGNATURE,
        assertThrows(LogException.class, () -> logged.with(elsewhere).verify(witnessKey)).reason());
  }

  /**
   * A signature line as golang.org/x/mod/sumdb/note's {@code Sign} writes it, built here from its
   * steps rather than with our signer: the key hash is the first four bytes of SHA-256(name, a
   * newline, the algorithm byte 0x01, the public key), big-endian; the line is an em dash, a space,
   * the name, a space, {@code base64.StdEncoding} (padded, unused bits zero) of the hash and the
   * Ed25519 signature over the text, and a newline.
   */
  private static String goSignatureLine(String text, String name, SigningKey key) throws Exception {
    java.security.MessageDigest sha256 = java.security.MessageDigest.getInstance("SHA-256");
    sha256.update((name + "\n").getBytes(StandardCharsets.UTF_8));
    sha256.update((byte) 0x01);
    sha256.update(key.verificationKey().bytes());
    byte[] hashAndSignature = Arrays.copyOf(sha256.digest(), 4 + 64);
    byte[] signature = key.sign(text.getBytes(StandardCharsets.UTF_8));
    System.arraycopy(signature, 0, hashAndSignature, 4, 64);
    return "\u2014 " + name + " " + Base64.getEncoder().encodeToString(hashAndSignature) + "\n";
  }

  @Test
  void aNoteCosignedAsGoWitnessesWriteIt_parsesVerifiesAndReencodesToItsBytes() throws Exception {
    // A Go witness opens the steward's note and calls note.Sign with its own signer: the text, a
    // blank line, the signatures it read (their base64 as read), then its own line. Two witnesses
    // in turn give three lines, the steward's first.
    SigningKey log = SigningKey.fromSeed(new byte[32]);
    byte[] seed = new byte[32];
    seed[0] = 9;
    SigningKey w1 = SigningKey.fromSeed(seed);
    seed[0] = 10;
    SigningKey w2 = SigningKey.fromSeed(seed);
    String text = "example.org/log\n1\n" + TreeHash.leaf(new byte[0]).base64() + "\n";
    String steward = SignedNote.sign(text, "example.org/log", log).encoded();
    String line1 = goSignatureLine(text, "witness.example/w1", w1);
    String line2 = goSignatureLine(text, "w2", w2);
    // 4 + 64 bytes: 92 characters, the last one padding.
    assertEquals(2 + "witness.example/w1".length() + 1 + 92 + 1, line1.length());
    assertTrue(line1.endsWith("=\n"), line1);
    String cosigned = steward + line1 + line2;

    SignedNote note = SignedNote.parse(cosigned);
    note.verify(new NoteVerifierKey("example.org/log", log.verificationKey()));
    note.verify(new NoteVerifierKey("witness.example/w1", w1.verificationKey()));
    note.verify(new NoteVerifierKey("w2", w2.verificationKey()));
    assertEquals(3, note.signatures().size());
    assertEquals(cosigned, note.encoded());

    // The doubly-signed note in the package's own documentation, as note.Sign wrote it (EnochRoot's
    // key is not published, so only its line's form is checked here).
    String goDoubly =
        GO_NOTE
            + "\u2014 EnochRoot rwz+eBzmZa0SO3NbfRGzPCpDckykFXSdeX+MNtCOXm2/5n2tiOHp+vAF1aGrQ5ovTG01oOTGwnWLox33WWd1RvMc+QQ=\n";
    SignedNote doubly = SignedNote.parse(goDoubly);
    doubly.verify(NoteVerifierKey.parse(GO_VERIFIER_KEY));
    assertEquals(goDoubly, doubly.encoded());
  }

  @Test
  void checkpoint_isTheC2spTextSignedAsANote_byteExact() throws Exception {
    byte[] seed = new byte[32];
    for (int i = 0; i < 32; i++) {
      seed[i] = (byte) i;
    }
    SigningKey key = SigningKey.fromSeed(seed);
    org.meshjava.core.identity.DidKey did =
        org.meshjava.core.identity.DidKey.of(key.verificationKey());
    MerkleTree tree = new MerkleTree();
    for (String e : new String[] {"a", "b", "c"}) {
      tree.append(e.getBytes(StandardCharsets.UTF_8));
    }
    Checkpoint checkpoint = new Checkpoint(Checkpoint.originOf(did), tree.size(), tree.root());
    String note = checkpoint.sign(key).encoded();
    assertEquals(EXPECTED_CHECKPOINT, note);
    assertEquals(checkpoint, Checkpoint.open(SignedNote.parse(note), Checkpoint.logKey(did)));
  }

  /** Cross-checked with Python's hashlib and pyca/cryptography Ed25519 when written. */
  private static final String EXPECTED_CHECKPOINT =
      "did:key:z6MkehRgf7yJbgaGfYsdoAsKdBPE3dj2CYhowQdcjqSJgvVd\n"
          + "3\n"
          + "NmQuc8JUCrEh46a/lUWwokmCzYMOsT080Z3jzmwCHsE=\n"
          + "\n"
          + "\u2014 did:key:z6MkehRgf7yJbgaGfYsdoAsKdBPE3dj2CYhowQdcjqSJgvVd"
          + " XbcOSLjf89dDGKjmDMI+1psA7NAjUBU6ws2xhBBqFhNnl0vFpAPJ2xHgYwONvbNCzcXaHSMrxvS/SjWNvY7nualGugE=\n";
}
