package org.meshjava.core.bytes;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
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
  /** Each byte's two lowercase hex digits as one big-endian {@code short}: high digit first. */
  private static final short[] HEX_PAIRS = hexPairs();

  private static final VarHandle DIGIT_PAIR =
      MethodHandles.byteArrayViewVarHandle(short[].class, ByteOrder.BIG_ENDIAN);

  private final byte[] bytes;

  /**
   * Takes {@code bytes} as the value's own: the subclass passes an array no one else holds (a copy,
   * or a digest it has just computed) and never modifies it afterwards.
   */
  protected ByteValue(byte[] bytes) {
    this.bytes = Objects.requireNonNull(bytes, "bytes");
  }

  private static short[] hexPairs() {
    String digits = "0123456789abcdef";
    short[] pairs = new short[256];
    for (int b = 0; b < 256; b++) {
      pairs[b] = (short) (digits.charAt(b >>> 4) << 8 | digits.charAt(b & 0xF));
    }
    return pairs;
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
   * Returns the bytes' lowercase hex as ASCII, one byte per digit: the bytes of {@link #hex()}'s
   * string, in a new array of exactly twice {@link #length()}. For a writer of UTF-8 output (the
   * served reply's {@code envelope_hex}, about 2 KB) that would otherwise build the string and then
   * copy it out again as bytes. Measured cheaper than {@code hex()} and a copy for a value of about
   * a kilobyte, dearer for a 32-byte id (session 38, mesh-bench). Thread-safe, as the value is.
   *
   * @throws OutOfMemoryError for a value of 2<sup>30</sup> bytes or more, whose hex is longer than
   *     an array holds, as {@link #hex()} throws it
   */
  public final byte[] hexAscii() {
    byte[] ascii = new byte[asciiLength(bytes.length)];
    for (int i = 0; i < bytes.length; i++) {
      // Both digits in one store: a digit at a time cost more CPU than the string and its copy
      // saved.
      DIGIT_PAIR.set(ascii, 2 * i, HEX_PAIRS[bytes[i] & 0xFF]);
    }
    return ascii;
  }

  /**
   * The number of hex digits of {@code length} bytes. Past a gibibyte twice the length no longer
   * fits an int (it would wrap negative and fail as a NegativeArraySizeException); {@link #hex()}
   * refuses such a value with an OutOfMemoryError, and so does this, so both forms fail alike.
   */
  static int asciiLength(int length) {
    long digits = 2L * length;
    if (digits > Integer.MAX_VALUE) {
      throw new OutOfMemoryError(
          "hex of " + length + " bytes is " + digits + " digits, more than an array holds");
    }
    return (int) digits;
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
