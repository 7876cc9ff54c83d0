package org.meshjava.receipt;

import java.util.Arrays;
import java.util.HexFormat;
import org.meshjava.core.ContentId;
import org.meshjava.core.crypto.Blake3;
import org.meshjava.core.crypto.SigningKey;

/**
 * The 32-byte opening of an output commitment (§6.4). The steward derives it per request, so it
 * can disclose any receipt's opening after a restart without having stored it:
 *
 * <pre>
 * opening_key = BLAKE3-derive_key("mesh-java 2026-11 output commitment opening key v1", seed)
 * opening     = BLAKE3-keyed(opening_key, request_id)
 * </pre>
 *
 * where {@code seed} is the steward's 32-byte Ed25519 seed. Immutable; bytes are copied.
 */
public final class Opening {
  /** The BLAKE3 key-derivation context for the opening key. */
  public static final String KEY_CONTEXT = "mesh-java 2026-11 output commitment opening key v1";

  private final byte[] bytes;

  private Opening(byte[] bytes) {
    this.bytes = bytes;
  }

  /**
   * Wraps 32 bytes.
   *
   * @throws IllegalArgumentException for any other length
   */
  public static Opening of(byte[] bytes) {
    if (bytes.length != 32) {
      throw new IllegalArgumentException("an opening is 32 bytes, got " + bytes.length);
    }
    return new Opening(bytes.clone());
  }

  /** Derives the opening for {@code requestId} from the steward's key. */
  public static Opening derive(SigningKey steward, ContentId requestId) {
    return Key.of(steward).open(requestId);
  }

  /**
   * The steward's opening key, derived once from its signing key so that each serve pays only
   * the keyed hash. Secret: it opens every commitment the steward made; it never prints.
   * Immutable and thread-safe.
   */
  public static final class Key {
    private final byte[] key;

    private Key(byte[] key) {
      this.key = key;
    }

    /** Derives the opening key from the steward's signing key. */
    public static Key of(SigningKey steward) {
      return new Key(steward.deriveSubkey(KEY_CONTEXT));
    }

    /** The opening for {@code requestId}. */
    public Opening open(ContentId requestId) {
      return new Opening(Blake3.keyedHash(key, requestId.bytes()));
    }

    @Override
    public String toString() {
      return "Opening.Key[secret]";
    }
  }

  /** Returns a copy of the bytes. */
  public byte[] bytes() {
    return bytes.clone();
  }

  /** Returns the bytes as lowercase hex. */
  public String hex() {
    return HexFormat.of().formatHex(bytes);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Opening other && Arrays.equals(bytes, other.bytes);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(bytes);
  }

  @Override
  public String toString() {
    return "Opening[" + hex() + "]";
  }
}
