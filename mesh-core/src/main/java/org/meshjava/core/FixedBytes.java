package org.meshjava.core;

import org.meshjava.core.bytes.ByteValue;

/**
 * A byte value of one fixed length (nonces, openings, hashes, keys): exactly {@code length} bytes,
 * copied in and out, equal when of the same type with the same bytes, and written as lowercase hex.
 * Subclasses add only their name, length and meaning. Immutable and thread-safe.
 */
public abstract class FixedBytes extends ByteValue {

  /**
   * Copies {@code bytes}, which must be exactly {@code length} long.
   *
   * @param what the value's name, for the error message
   * @throws IllegalArgumentException for any other length
   */
  protected FixedBytes(byte[] bytes, int length, String what) {
    super(copyOfLength(bytes, length, what));
  }

  private static byte[] copyOfLength(byte[] bytes, int length, String what) {
    if (bytes.length != length) {
      throw new IllegalArgumentException(what + " is " + length + " bytes, got " + bytes.length);
    }
    return bytes.clone();
  }
}
