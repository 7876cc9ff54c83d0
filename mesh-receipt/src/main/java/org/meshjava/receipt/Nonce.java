package org.meshjava.receipt;

import org.meshjava.core.FixedBytes;

/** A receipt's 16-byte nonce (§6.1). Immutable; bytes are copied in and out. */
public final class Nonce extends FixedBytes {
  /** Length in bytes. */
  public static final int LENGTH = 16;

  private Nonce(byte[] bytes) {
    super(bytes, LENGTH, "a receipt nonce");
  }

  /**
   * Wraps 16 bytes.
   *
   * @throws IllegalArgumentException for any other length
   */
  public static Nonce of(byte[] bytes) {
    return new Nonce(bytes);
  }
}
