package org.meshjava.jcp;

import java.security.SecureRandom;
import java.util.Arrays;
import java.util.HexFormat;

/**
 * The 16-byte nonce of a {@link Presentation} (§2.1). A (leaf grant, nonce) pair spends once at a
 * steward. Immutable and thread-safe; bytes are copied in and out.
 */
public final class PresentationNonce {
  /** Length in bytes. */
  public static final int LENGTH = 16;

  private static final SecureRandom RANDOM = new SecureRandom();

  private final byte[] bytes;

  private PresentationNonce(byte[] bytes) {
    this.bytes = bytes;
  }

  /**
   * Wraps 16 bytes.
   *
   * @throws IllegalArgumentException if not 16 bytes
   */
  public static PresentationNonce of(byte[] bytes) {
    if (bytes.length != LENGTH) {
      throw new IllegalArgumentException("a presentation nonce is 16 bytes, got " + bytes.length);
    }
    return new PresentationNonce(bytes.clone());
  }

  /** Returns a fresh nonce from a shared {@link SecureRandom}. */
  public static PresentationNonce random() {
    byte[] b = new byte[LENGTH];
    RANDOM.nextBytes(b);
    return new PresentationNonce(b);
  }

  /** Returns a copy of the bytes. */
  public byte[] bytes() {
    return bytes.clone();
  }

  /** Returns the bytes as 32 lowercase hex digits. */
  public String hex() {
    return HexFormat.of().formatHex(bytes);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof PresentationNonce other && Arrays.equals(bytes, other.bytes);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(bytes);
  }

  @Override
  public String toString() {
    return hex();
  }
}
