package org.meshjava.receipt;

import java.util.Arrays;
import java.util.HexFormat;
import org.meshjava.core.ContentId;
import org.meshjava.core.bytes.LowercaseHex;

/**
 * The bytes of a sealed JCR-1 envelope and their content id (BLAKE3 of the bytes, §6.3). Immutable;
 * bytes are copied in and out. An {@code Envelope} is just bytes: it is not verified until {@link
 * Jcr1#open(Envelope)} says so.
 */
public final class Envelope {
  private final byte[] bytes;
  private final ContentId id;

  private Envelope(byte[] bytes) {
    this.bytes = bytes;
    this.id = ContentId.ofBytes(bytes);
  }

  /** Wraps a copy of {@code bytes}. */
  public static Envelope of(byte[] bytes) {
    return new Envelope(bytes.clone());
  }

  /**
   * Parses lowercase hex ({@link LowercaseHex}), surrounding whitespace ignored.
   *
   * @throws IllegalArgumentException if it is not lowercase hex; the message starts "not lowercase
   *     hex" and says where
   */
  public static Envelope fromHex(String hex) {
    return new Envelope(LowercaseHex.decode(hex.strip()));
  }

  /** Returns a copy of the bytes. */
  public byte[] bytes() {
    return bytes.clone();
  }

  /** Returns the bytes as lowercase hex. */
  public String hex() {
    return HexFormat.of().formatHex(bytes);
  }

  /** Returns the content id: BLAKE3 of the bytes. */
  public ContentId id() {
    return id;
  }

  /** Returns the length in bytes. */
  public int length() {
    return bytes.length;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Envelope e && Arrays.equals(bytes, e.bytes);
  }

  @Override
  public int hashCode() {
    return id.hashCode();
  }

  @Override
  public String toString() {
    return "Envelope[" + bytes.length + " bytes, id " + id + "]";
  }
}
