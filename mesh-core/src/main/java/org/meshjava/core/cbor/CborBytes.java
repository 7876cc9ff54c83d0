package org.meshjava.core.cbor;

import org.meshjava.core.bytes.ByteValue;

/**
 * A CBOR byte string (major type 2). The bytes are copied in and out, so it is immutable; byte
 * strings are equal when their bytes are, and print in CBOR diagnostic notation ({@code h'0102'}).
 */
public final class CborBytes extends ByteValue implements CborValue {

  private CborBytes(byte[] bytes) {
    super(bytes);
  }

  /** Returns a byte string holding a copy of {@code bytes}. */
  public static CborBytes of(byte[] bytes) {
    return new CborBytes(bytes.clone());
  }

  /** Wraps bytes the caller promises never to modify again; used by the decoder to avoid a copy. */
  static CborBytes adopt(byte[] bytes) {
    return new CborBytes(bytes);
  }

  byte[] unsafeBytes() {
    return unsharedBytes();
  }

  @Override
  public String toString() {
    return "h'" + hex() + "'";
  }
}
