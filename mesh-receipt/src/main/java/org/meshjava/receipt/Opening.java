package org.meshjava.receipt;

import org.meshjava.core.ContentId;
import org.meshjava.core.FixedBytes;
import org.meshjava.core.crypto.Blake3;
import org.meshjava.core.crypto.SigningKey;

/**
 * The 32-byte opening of an output commitment (§6.4). The steward derives it per request, so it can
 * disclose any receipt's opening after a restart without having stored it:
 *
 * <pre>
 * opening_key = BLAKE3-derive_key("mesh-java 2026-11 output commitment opening key v1", seed)
 * opening     = BLAKE3-keyed(opening_key, request_id)
 * </pre>
 *
 * where {@code seed} is the steward's 32-byte Ed25519 seed. Immutable; bytes are copied.
 */
public final class Opening extends FixedBytes {
  /** The BLAKE3 key-derivation context for the opening key. */
  public static final String KEY_CONTEXT = "mesh-java 2026-11 output commitment opening key v1";

  private Opening(byte[] bytes) {
    super(bytes, 32, "an opening");
  }

  /**
   * Wraps 32 bytes.
   *
   * @throws IllegalArgumentException for any other length
   */
  public static Opening of(byte[] bytes) {
    return new Opening(bytes);
  }

  /** Derives the opening for {@code requestId} from the steward's key. */
  public static Opening derive(SigningKey steward, ContentId requestId) {
    return Key.of(steward).open(requestId);
  }

  /**
   * The steward's opening key, derived once from its signing key so that each serve pays only the
   * keyed hash. Secret: it opens every commitment the steward made; it never prints. Immutable and
   * thread-safe.
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

  @Override
  public String toString() {
    return "Opening[" + hex() + "]";
  }
}
