package org.meshjava.core.cbor;

/**
 * A CBOR integer (major type 0 or 1) in the range of a Java {@code long}.
 *
 * <p>CBOR can carry unsigned values up to 2^64−1 and negative values down to −2^64; mesh/1 never
 * needs more than 63 bits, so the decoder refuses the rest with {@link CborRule#INTEGER_RANGE}
 * rather than silently wrapping.
 *
 * @param value the integer
 */
public record CborInt(long value) implements CborValue {

  /** Returns the integer {@code value}. */
  public static CborInt of(long value) {
    return new CborInt(value);
  }
}
