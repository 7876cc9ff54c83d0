package org.meshjava.receipt;

import java.util.Arrays;
import java.util.HexFormat;

/** A receipt's 16-byte nonce (§6.1). Immutable; bytes are copied in and out. */
public final class Nonce {
  /** Length in bytes. */
  public static final int LENGTH = 16;

  private final byte[] bytes;

  private Nonce(byte[] bytes) {
    this.bytes = bytes;
  }

  /**
   * Wraps 16 bytes.
   *
   * @throws IllegalArgumentException for any other length
   */
  public static Nonce of(byte[] bytes) {
    if (bytes.length != LENGTH) {
      throw new IllegalArgumentException("a receipt nonce is 16 bytes, got " + bytes.length);
    }
    return new Nonce(bytes.clone());
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
    return o instanceof Nonce other && Arrays.equals(bytes, other.bytes);
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
