package org.meshjava.core;

import java.util.Arrays;

/**
 * An immutable sequence of token ids, each an unsigned 32-bit value. Used both for the prompt token
 * payload an engine is handed and for the tokens it emits. {@link #toLittleEndian()} is the byte
 * form §6.4 commits to.
 */
public final class TokenSequence {
  private static final TokenSequence EMPTY = new TokenSequence(new int[0]);

  private final int[] ids;

  private TokenSequence(int[] ids) {
    this.ids = ids;
  }

  /** Returns the sequence of these ids (read as unsigned 32-bit values). */
  public static TokenSequence of(int... ids) {
    return ids.length == 0 ? EMPTY : new TokenSequence(ids.clone());
  }

  /** Returns the empty sequence. */
  public static TokenSequence empty() {
    return EMPTY;
  }

  /** Returns the number of tokens. */
  public int size() {
    return ids.length;
  }

  /** Returns the id at {@code index} as an unsigned value. */
  public long get(int index) {
    return Integer.toUnsignedLong(ids[index]);
  }

  /** Returns a copy of the ids. */
  public int[] toArray() {
    return ids.clone();
  }

  /** Returns the ids as consecutive little-endian u32s. */
  public byte[] toLittleEndian() {
    byte[] out = new byte[ids.length * 4];
    for (int i = 0; i < ids.length; i++) {
      int v = ids[i];
      out[4 * i] = (byte) v;
      out[4 * i + 1] = (byte) (v >>> 8);
      out[4 * i + 2] = (byte) (v >>> 16);
      out[4 * i + 3] = (byte) (v >>> 24);
    }
    return out;
  }

  /**
   * Parses consecutive little-endian u32s.
   *
   * @throws IllegalArgumentException if the length is not a multiple of four
   */
  public static TokenSequence fromLittleEndian(byte[] bytes) {
    if (bytes.length % 4 != 0) {
      throw new IllegalArgumentException(
          "a token payload is a whole number of u32s; got " + bytes.length + " bytes");
    }
    int[] ids = new int[bytes.length / 4];
    for (int i = 0; i < ids.length; i++) {
      ids[i] =
          (bytes[4 * i] & 0xFF)
              | (bytes[4 * i + 1] & 0xFF) << 8
              | (bytes[4 * i + 2] & 0xFF) << 16
              | (bytes[4 * i + 3] & 0xFF) << 24;
    }
    return new TokenSequence(ids);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof TokenSequence other && Arrays.equals(ids, other.ids);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(ids);
  }

  @Override
  public String toString() {
    return "TokenSequence" + (ids.length <= 16 ? Arrays.toString(ids) : "[" + ids.length + " ids]");
  }
}
