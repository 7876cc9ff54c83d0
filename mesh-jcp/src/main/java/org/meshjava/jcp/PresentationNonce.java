package org.meshjava.jcp;

import java.security.SecureRandom;
import org.meshjava.core.FixedBytes;

/**
 * The 16-byte nonce of a {@link Presentation} (§2.1). A (leaf grant, nonce) pair spends once at a
 * steward. Immutable and thread-safe; bytes are copied in and out.
 */
public final class PresentationNonce extends FixedBytes {
  /** Length in bytes. */
  public static final int LENGTH = 16;

  private static final SecureRandom RANDOM = new SecureRandom();

  private PresentationNonce(byte[] bytes) {
    super(bytes, LENGTH, "a presentation nonce");
  }

  /**
   * Wraps 16 bytes.
   *
   * @throws IllegalArgumentException if not 16 bytes
   */
  public static PresentationNonce of(byte[] bytes) {
    return new PresentationNonce(bytes);
  }

  /** Returns a fresh nonce from a shared {@link SecureRandom}. */
  public static PresentationNonce random() {
    byte[] b = new byte[LENGTH];
    RANDOM.nextBytes(b);
    return new PresentationNonce(b);
  }
}
