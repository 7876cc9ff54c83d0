package org.meshjava.core.cbor;

import java.nio.ByteBuffer;
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

  /**
   * A read-only view of the bytes, without copying them: for reading a large byte string (a
   * snapshot's sections, megabytes each) where {@link #bytes()} would copy it. The view's position
   * is 0 and its limit {@link #length()}; since the bytes never change, it stays valid for as long
   * as it is held.
   */
  public ByteBuffer asReadOnlyBuffer() {
    return ByteBuffer.wrap(unsharedBytes()).asReadOnlyBuffer();
  }

  @Override
  public String toString() {
    return "h'" + hex() + "'";
  }
}
