package org.meshjava.core.cbor;

import java.util.Arrays;
import java.util.HexFormat;

/** A CBOR byte string (major type 2). The bytes are copied in and out, so it is immutable. */
public final class CborBytes implements CborValue {
  private final byte[] bytes;

  private CborBytes(byte[] bytes) {
    this.bytes = bytes;
  }

  /** Returns a byte string holding a copy of {@code bytes}. */
  public static CborBytes of(byte[] bytes) {
    return new CborBytes(bytes.clone());
  }

  /** Wraps bytes the caller promises never to modify again; used by the decoder to avoid a copy. */
  static CborBytes adopt(byte[] bytes) {
    return new CborBytes(bytes);
  }

  /** Returns a copy of the bytes. */
  public byte[] bytes() {
    return bytes.clone();
  }

  /** Returns the number of bytes. */
  public int length() {
    return bytes.length;
  }

  byte[] unsafeBytes() {
    return bytes;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof CborBytes other && Arrays.equals(bytes, other.bytes);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(bytes);
  }

  @Override
  public String toString() {
    return "h'" + HexFormat.of().formatHex(bytes) + "'";
  }
}
