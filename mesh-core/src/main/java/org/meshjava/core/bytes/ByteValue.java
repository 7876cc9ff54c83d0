package org.meshjava.core.bytes;

import java.util.Arrays;
import java.util.HexFormat;
import java.util.Objects;

/**
 * The common shape of mesh-java's immutable byte values (content ids, keys, signatures, CBOR byte
 * strings, prompts, tree hashes): the value owns its bytes and hands out copies; two values are
 * equal when they are of the same class and hold the same bytes; the default text is lowercase hex.
 * Subclasses add what the bytes mean. Immutable and thread-safe.
 *
 * <p>One base rather than a copied {@code equals}/{@code hashCode}/{@code toString} per value, so
 * that every byte value compares, hashes and copies the same way.
 */
public abstract class ByteValue {
  private final byte[] bytes;

  /**
   * Takes {@code bytes} as the value's own: the subclass passes an array no one else holds (a copy,
   * or a digest it has just computed) and never modifies it afterwards.
   */
  protected ByteValue(byte[] bytes) {
    this.bytes = Objects.requireNonNull(bytes, "bytes");
  }

  /** Returns a copy of the bytes. */
  public final byte[] bytes() {
    return bytes.clone();
  }

  /** Returns the number of bytes. */
  public final int length() {
    return bytes.length;
  }

  /** Returns the bytes as lowercase hex. */
  public final String hex() {
    return HexFormat.of().formatHex(bytes);
  }

  /**
   * Returns the bytes themselves, for a subclass that reads them without a copy (to hash, compare
   * or encode them); it must neither modify nor hand out the array.
   */
  protected final byte[] unsharedBytes() {
    return bytes;
  }

  @Override
  public final boolean equals(Object o) {
    return o != null && o.getClass() == getClass() && Arrays.equals(bytes, ((ByteValue) o).bytes);
  }

  @Override
  public final int hashCode() {
    return Arrays.hashCode(bytes);
  }

  /** Returns the bytes as lowercase hex; subclasses may name themselves around it. */
  @Override
  public String toString() {
    return hex();
  }
}
