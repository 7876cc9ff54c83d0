package org.meshjava.receipt.tlog;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Base64;

/**
 * One signature line of a C2SP signed note: {@code — name base64(key hash || signature)}.
 *
 * <p>The signature bytes are kept as given: an Ed25519 note signature is 64 bytes, other algorithms
 * (such as a timestamped witness cosignature) carry more; a verifier only checks lines whose name
 * and key hash match a key it knows. Immutable and thread-safe: the signature is copied in and out.
 *
 * @param name the signing key's name
 * @param keyHash the four-byte key hash, big-endian
 * @param signature the signature bytes after the key hash
 */
@SuppressWarnings("ArrayRecordComponent") // parsed from and written to text, never compared
public record NoteSignature(String name, int keyHash, byte[] signature) {
  /** U+2014 EM DASH and a space: how every signature line begins. */
  static final String PREFIX = "\u2014 ";

  /**
   * Validates the name and copies the signature.
   *
   * @throws IllegalArgumentException if the name is not a valid note key name or the signature is
   *     empty
   */
  public NoteSignature {
    if (!NoteVerifierKey.isValidName(name)) {
      throw new IllegalArgumentException("not a valid note key name: " + name);
    }
    if (signature.length == 0) {
      throw new IllegalArgumentException("an empty signature");
    }
    signature = signature.clone();
  }

  /** Returns a copy of the signature bytes. */
  @Override
  public byte[] signature() {
    return signature.clone();
  }

  /** Returns the line, ending in a newline. */
  public String line() {
    byte[] blob = ByteBuffer.allocate(4 + signature.length).putInt(keyHash).put(signature).array();
    return PREFIX + name + " " + Base64.getEncoder().encodeToString(blob) + "\n";
  }

  /**
   * Parses one line without its newline.
   *
   * @throws LogException {@code MALFORMED_NOTE} when it is not a signature line
   */
  static NoteSignature parseLine(String line) throws LogException {
    if (!line.startsWith(PREFIX)) {
      throw malformed("a signature line starts with an em dash and a space");
    }
    String rest = line.substring(PREFIX.length());
    int space = rest.indexOf(' ');
    if (space <= 0) {
      throw malformed("a signature line is a name, a space and base64");
    }
    String name = rest.substring(0, space);
    byte[] blob;
    try {
      blob = StandardBase64.decode(rest.substring(space + 1));
    } catch (IllegalArgumentException e) {
      // one spelling per signature: a line the signer did not write is not its signature
      throw malformed(
          "the signature on line '"
              + line
              + "' is not standard base64 ('=' padding, unused bits zero)");
    }
    if (blob.length <= 4 || !NoteVerifierKey.isValidName(name)) {
      throw malformed("bad name or signature too short");
    }
    return new NoteSignature(
        name, ByteBuffer.wrap(blob).getInt(), Arrays.copyOfRange(blob, 4, blob.length));
  }

  private static LogException malformed(String detail) {
    return new LogException(LogException.Reason.MALFORMED_NOTE, detail);
  }

  /** Equal when the name, the key hash and the signature bytes are. */
  @Override
  public boolean equals(Object o) {
    return o instanceof NoteSignature other
        && name.equals(other.name)
        && keyHash == other.keyHash
        && Arrays.equals(signature, other.signature);
  }

  @Override
  public int hashCode() {
    return 31 * (31 * name.hashCode() + keyHash) + Arrays.hashCode(signature);
  }

  /** Returns the line without its newline. */
  @Override
  public String toString() {
    return line().strip();
  }
}
