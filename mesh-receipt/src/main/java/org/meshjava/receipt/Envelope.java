package org.meshjava.receipt;

import org.meshjava.core.ContentId;
import org.meshjava.core.bytes.ByteValue;
import org.meshjava.core.bytes.LowercaseHex;

/**
 * The bytes of a sealed JCR-1 envelope and their content id (BLAKE3 of the bytes, §6.3). Immutable;
 * bytes are copied in and out, and two envelopes are equal when their bytes are ({@link
 * ByteValue}). An {@code Envelope} is just bytes: it is not verified until {@link
 * Jcr1#open(Envelope)} says so.
 */
public final class Envelope extends ByteValue {
  private final ContentId id;

  /** Takes {@code bytes} as the envelope's own: the caller passes an array no one else holds. */
  private Envelope(byte[] bytes) {
    super(bytes);
    this.id = ContentId.ofBytes(bytes);
  }

  /** Wraps a copy of {@code bytes}. */
  public static Envelope of(byte[] bytes) {
    return new Envelope(bytes.clone());
  }

  /** Takes {@code bytes} as the envelope's own, uncopied: for a fresh array no one else holds. */
  static Envelope adopt(byte[] bytes) {
    return new Envelope(bytes);
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

  /** Returns the content id: BLAKE3 of the bytes. */
  public ContentId id() {
    return id;
  }

  @Override
  public String toString() {
    return "Envelope[" + length() + " bytes, id " + id + "]";
  }
}
