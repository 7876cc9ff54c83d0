package org.meshjava.fuzz;

import java.util.Arrays;
import org.meshjava.core.crypto.SigningKey;

/**
 * Keys from fixed seeds, so that a stored input signed under one (a snapshot body, a revocation, a
 * cosigned checkpoint) stays valid for the target that checks it on every run.
 */
final class FixedKey {
  private FixedKey() {}

  /** The key whose seed is 32 bytes of {@code b}. */
  static SigningKey of(int b) {
    byte[] seed = new byte[SigningKey.SEED_LENGTH];
    Arrays.fill(seed, (byte) b);
    return SigningKey.fromSeed(seed);
  }
}
