package org.meshjava.receipt.internal;

/**
 * Where a receipt's signed core (§6.1) is written field by field, in canonical key order, without
 * building it as a CBOR value first: the seal writes the bytes it signs this way, and the HTTP
 * binding the receipt's JSON view. The core holds only unsigned integers, texts and one byte string
 * (the nonce), so these three calls are all a core makes.
 *
 * <p>Implementations are used by one thread at a time.
 *
 * @param <X> what a call may throw (a JSON generator's {@link java.io.IOException}; a sink into
 *     memory throws nothing checked)
 */
public interface SignedCoreSink<X extends Exception> {
  /** Writes a text field. */
  void text(String key, String value) throws X;

  /**
   * Writes an unsigned integer field. No caller passes a negative {@code value}: every integer of a
   * core is one {@code SignedCore.decode} reads as unsigned, from a receipt whose fields are
   * checked non-negative or from a payload that opened as one. A sink need not refuse a negative
   * (the seal's, {@code SignedCoreBytes}, writes one as CBOR's negative integer, as the map built
   * by {@code SignedCore.encode} would, so that the two stay byte for byte equal whatever they
   * get).
   */
  void uint(String key, long value) throws X;

  /** Writes a byte-string field; {@code value} is read, not kept. */
  void bytes(String key, byte[] value) throws X;
}
