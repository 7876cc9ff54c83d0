package org.meshjava.core;

import java.util.Arrays;
import java.util.Objects;
import org.meshjava.core.bytes.LowercaseHex;
import org.meshjava.core.crypto.Blake3;

/**
 * A content address: the 32-byte BLAKE3 hash of some bytes, written on the wire as 64 lowercase hex
 * digits. Immutable and thread-safe.
 *
 * <p>{@link #of(CanonicalForm)} hashes a value's canonical CBOR; {@link #ofBytes(byte[])} hashes
 * raw bytes as they are (a prompt, an envelope). {@link #bytes()} returns the 32 digest bytes and
 * {@link #hex()} (also its {@code toString}) the 64-digit form used on the wire.
 */
public final class ContentId extends FixedBytes implements Comparable<ContentId> {
  /** Length of the digest. */
  public static final int LENGTH = 32;

  private ContentId(byte[] digest) {
    super(digest, LENGTH, "a content id");
  }

  /** Returns the content id of {@code value}'s canonical CBOR encoding. */
  public static ContentId of(CanonicalForm value) {
    return ofBytes(value.encode());
  }

  /** Returns the BLAKE3 hash of {@code bytes} as they are. */
  public static ContentId ofBytes(byte[] bytes) {
    return new ContentId(Blake3.hash(bytes));
  }

  /**
   * Wraps an existing 32-byte digest.
   *
   * @throws IllegalArgumentException if it is not 32 bytes
   */
  public static ContentId fromDigest(byte[] digest) {
    return new ContentId(digest);
  }

  /**
   * Parses 64 lowercase hex digits ({@link LowercaseHex}).
   *
   * @throws IllegalArgumentException if the text is not exactly that; the message says which
   */
  public static ContentId fromHex(String hex) {
    Objects.requireNonNull(hex, "hex");
    if (hex.length() != 2 * LENGTH) {
      throw new IllegalArgumentException(
          "a content id is 64 lowercase hex digits, got " + hex.length() + " characters");
    }
    try {
      return new ContentId(LowercaseHex.decode(hex));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("a content id is " + e.getMessage(), e);
    }
  }

  @Override
  public int compareTo(ContentId o) {
    return Arrays.compareUnsigned(unsharedBytes(), o.unsharedBytes());
  }
}
