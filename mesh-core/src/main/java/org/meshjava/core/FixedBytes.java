package org.meshjava.core;

import java.util.Arrays;
import java.util.HexFormat;

/**
 * The common shape of mesh-java's small fixed-length byte values (nonces, openings): exactly {@code
 * length} bytes, copied in and out, equal when of the same type with the same bytes, and written as
 * lowercase hex. Subclasses add only their name and length. Immutable and thread-safe.
 */
public abstract class FixedBytes {
  private final byte[] bytes;

  /**
   * Copies {@code bytes}, which must be exactly {@code length} long.
   *
   * @param what the value's name, for the error message
   * @throws IllegalArgumentException for any other length
   */
  protected FixedBytes(byte[] bytes, int length, String what) {
    if (bytes.length != length) {
      throw new IllegalArgumentException(what + " is " + length + " bytes, got " + bytes.length);
    }
    this.bytes = bytes.clone();
  }

  /** Returns a copy of the bytes. */
  public final byte[] bytes() {
    return bytes.clone();
  }

  /** Returns the bytes as lowercase hex. */
  public final String hex() {
    return HexFormat.of().formatHex(bytes);
  }

  @Override
  public final boolean equals(Object o) {
    return o != null && o.getClass() == getClass() && Arrays.equals(bytes, ((FixedBytes) o).bytes);
  }

  @Override
  public final int hashCode() {
    return Arrays.hashCode(bytes);
  }

  @Override
  public String toString() {
    return hex();
  }
}
