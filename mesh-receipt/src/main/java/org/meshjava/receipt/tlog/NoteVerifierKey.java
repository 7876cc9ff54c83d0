package org.meshjava.receipt.tlog;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Base64;
import java.util.HexFormat;
import org.meshjava.core.crypto.SignatureException;
import org.meshjava.core.crypto.VerificationKey;

/**
 * A named Ed25519 key that signs C2SP signed notes: a log's key or a witness's. Immutable and
 * thread-safe.
 *
 * <p>Its key hash (the four bytes every signature line starts with) is the first four bytes of
 * SHA-256(name || "\n" || 0x01 || public key), 0x01 being the signed-note algorithm byte for
 * Ed25519, exactly as Go's {@code golang.org/x/mod/sumdb/note} computes it. Its text form is Go's
 * verifier key: {@code name+hhhhhhhh+base64(0x01 || public key)}.
 *
 * @param name the key's name: non-empty, no white space, no {@code +}
 * @param key the Ed25519 public key
 */
public record NoteVerifierKey(String name, VerificationKey key) {
  /** The signed-note algorithm byte for Ed25519. */
  static final byte ALGORITHM_ED25519 = 0x01;

  /**
   * Validates the name.
   *
   * @throws IllegalArgumentException if the name is empty or holds white space, {@code +} or a lone
   *     surrogate
   */
  public NoteVerifierKey {
    if (!isValidName(name)) {
      throw new IllegalArgumentException(
          "a note key name is non-empty UTF-8 without white space or '+': " + name);
    }
  }

  /** Whether {@code name} may name a note key (the rule Go's sumdb/note applies). */
  static boolean isValidName(String name) {
    return name != null
        && !name.isEmpty()
        && name.codePoints().noneMatch(c -> Character.isWhitespace(c) || Character.isSpaceChar(c))
        && name.indexOf('+') < 0
        && StandardCharsets.UTF_8.newEncoder().canEncode(name);
  }

  /** Returns the key hash that opens this key's signature lines. */
  public int keyHash() {
    MessageDigest sha = TreeHash.sha256();
    sha.update(name.getBytes(StandardCharsets.UTF_8));
    sha.update((byte) '\n');
    sha.update(ALGORITHM_ED25519);
    sha.update(key.bytes());
    return ByteBuffer.wrap(sha.digest()).getInt();
  }

  /** Returns the Go verifier-key text: {@code name+hhhhhhhh+base64(0x01 || public key)}. */
  public String encoded() {
    byte[] material = new byte[1 + VerificationKey.LENGTH];
    material[0] = ALGORITHM_ED25519;
    System.arraycopy(key.bytes(), 0, material, 1, VerificationKey.LENGTH);
    return name
        + "+"
        + HexFormat.of().toHexDigits(keyHash())
        + "+"
        + Base64.getEncoder().encodeToString(material);
  }

  /**
   * Parses a Go verifier key, checking that its hash matches its name and key.
   *
   * @throws LogException {@code MALFORMED_KEY} when the text is not such a key
   */
  public static NoteVerifierKey parse(String text) throws LogException {
    int first = text.indexOf('+');
    int second = first < 0 ? -1 : text.indexOf('+', first + 1);
    if (first <= 0 || second != first + 9) {
      throw malformed("expected name+hhhhhhhh+base64");
    }
    String name = text.substring(0, first);
    String hashHex = text.substring(first + 1, second);
    byte[] material;
    try {
      material = StandardBase64.decode(text.substring(second + 1));
    } catch (IllegalArgumentException e) {
      throw malformed("the key is not standard base64 ('=' padding, unused bits zero)");
    }
    if (material.length != 1 + VerificationKey.LENGTH || material[0] != ALGORITHM_ED25519) {
      throw malformed("the key is not 0x01 followed by a 32-byte Ed25519 key");
    }
    if (!isValidName(name) || !hashHex.matches("[0-9a-f]{8}")) {
      throw malformed("bad name or key hash");
    }
    NoteVerifierKey key;
    try {
      key =
          new NoteVerifierKey(
              name, VerificationKey.of(java.util.Arrays.copyOfRange(material, 1, material.length)));
    } catch (SignatureException e) {
      throw malformed("not a valid Ed25519 key");
    }
    if (key.keyHash() != (int) Long.parseLong(hashHex, 16)) {
      throw malformed("the key hash does not match the name and key");
    }
    return key;
  }

  private static LogException malformed(String detail) {
    return new LogException(LogException.Reason.MALFORMED_KEY, detail);
  }
}
