package org.meshjava.core.cbor;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.HexFormat;
import org.jspecify.annotations.Nullable;

/**
 * A CBOR byte string (major type 2). Immutable: the bytes are copied in and out; byte strings are
 * equal when their bytes are, and print in CBOR diagnostic notation ({@code h'0102'}).
 *
 * <p>Design note. Unlike mesh-java's other byte values ({@link org.meshjava.core.bytes.ByteValue})
 * a byte string may be a read-only <em>view</em> of bytes it does not own: {@link
 * CanonicalCbor#decodeInPlace} reads a large byte string (a journal snapshot's sections, tens of
 * megabytes each) where it lies in the input rather than copying it, because the input is promised
 * never to change. So it holds either an array of its own or such a view, and defines equality,
 * hashing and hex over its content itself; both forms of the same bytes are equal.
 */
public final class CborBytes implements CborValue {
  /** The bytes, when held as an array of its own; null for a view. */
  private final byte @Nullable [] array;

  /** The bytes, when a view: read-only, position 0, limit its length; null for an array. */
  private final @Nullable ByteBuffer view;

  private CborBytes(byte @Nullable [] array, @Nullable ByteBuffer view) {
    this.array = array;
    this.view = view;
  }

  /** Returns a byte string holding a copy of {@code bytes}. */
  public static CborBytes of(byte[] bytes) {
    return new CborBytes(bytes.clone(), null);
  }

  /** Wraps bytes the caller promises never to modify again; used by the decoder to avoid a copy. */
  static CborBytes adopt(byte[] bytes) {
    return new CborBytes(bytes, null);
  }

  /**
   * A byte string whose content is the bytes from {@code content}'s position to its limit, read
   * there and never copied: for building a value of hundreds of megabytes from bytes already in
   * memory (a journal snapshot's sections) and writing it with {@link
   * CanonicalCbor#encodeSegments}. The caller promises that those bytes never change while the byte
   * string is held; {@code content}'s position and limit are left as they were.
   */
  public static CborBytes viewOf(ByteBuffer content) {
    return new CborBytes(null, content.slice().asReadOnlyBuffer());
  }

  /** Returns a copy of the bytes. */
  public byte[] bytes() {
    if (array != null) {
      return array.clone();
    }
    byte[] out = new byte[length()];
    content().get(0, out);
    return out;
  }

  /** Returns the number of bytes. */
  public int length() {
    return array != null ? array.length : content().limit();
  }

  /** Returns the bytes as lowercase hex. */
  public String hex() {
    return array != null ? HexFormat.of().formatHex(array) : HexFormat.of().formatHex(bytes());
  }

  /**
   * A read-only view of the bytes, without copying them: for reading a large byte string (a
   * snapshot's sections, megabytes each) where {@link #bytes()} would copy it. The view's position
   * is 0 and its limit {@link #length()}; since the bytes never change, it stays valid for as long
   * as it is held.
   */
  public ByteBuffer asReadOnlyBuffer() {
    return array != null ? ByteBuffer.wrap(array).asReadOnlyBuffer() : content().duplicate();
  }

  /** The bytes as a read-only buffer at position 0, for the codec; never handed out as is. */
  ByteBuffer content() {
    return view != null ? view : ByteBuffer.wrap(array).asReadOnlyBuffer();
  }

  /** The bytes themselves when held as an array, for the encoder; null for a view. */
  byte @Nullable [] ownArray() {
    return array;
  }

  @Override
  public boolean equals(Object o) {
    if (!(o instanceof CborBytes other)) {
      return false;
    }
    if (array != null && other.array != null) {
      return Arrays.equals(array, other.array);
    }
    return content().equals(other.content());
  }

  @Override
  public int hashCode() {
    if (array != null) {
      return Arrays.hashCode(array);
    }
    // Arrays.hashCode's formula, so that a view and an array of the same bytes hash alike.
    ByteBuffer c = content();
    int h = 1;
    for (int i = 0; i < c.limit(); i++) {
      h = 31 * h + c.get(i);
    }
    return h;
  }

  @Override
  public String toString() {
    return "h'" + hex() + "'";
  }
}
