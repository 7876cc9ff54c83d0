package org.meshjava.core;

import java.security.SecureRandom;

/**
 * Where a steward takes its per-receipt nonces (§6.1). A production steward uses {@link
 * #secureRandom()}; conformance vectors use a fixed source.
 */
@FunctionalInterface
public interface NonceSource {
  /** Length of a nonce in bytes. */
  int LENGTH = 16;

  /** Returns a fresh 16-byte nonce. Must be thread-safe. */
  byte[] next();

  /** Nonces from a {@link SecureRandom}. */
  static NonceSource secureRandom() {
    SecureRandom random = new SecureRandom();
    return () -> {
      byte[] b = new byte[LENGTH];
      random.nextBytes(b);
      return b;
    };
  }

  /** The same nonce every time; for vectors and tests only. */
  static NonceSource fixed(byte[] nonce) {
    if (nonce.length != LENGTH) {
      throw new IllegalArgumentException("a nonce is 16 bytes, got " + nonce.length);
    }
    byte[] copy = nonce.clone();
    return copy::clone;
  }
}
