package org.meshjava.core.crypto;

import java.security.SecureRandom;
import org.bouncycastle.crypto.params.Ed25519PrivateKeyParameters;
import org.bouncycastle.math.ec.rfc8032.Ed25519;
import org.meshjava.core.bytes.LowercaseHex;

/**
 * An Ed25519 private key (RFC 8032), held from its 32-byte seed. Thread-safe.
 *
 * <p>Guarded: {@link #toString()} never shows the seed, and reading the seed back out is a
 * deliberate call ({@link #exportSeed()}), meant for writing a key file.
 */
public final class SigningKey {
  /** Length of a seed. */
  public static final int SEED_LENGTH = 32;

  private final byte[] seed;
  private final Ed25519PrivateKeyParameters params;
  private final VerificationKey verificationKey;

  private SigningKey(byte[] seed) {
    this.seed = seed;
    this.params = new Ed25519PrivateKeyParameters(seed, 0);
    try {
      this.verificationKey = VerificationKey.of(params.generatePublicKey().getEncoded());
    } catch (SignatureException e) {
      throw new IllegalStateException("derived public key is invalid", e);
    }
  }

  /**
   * Returns the key with this 32-byte seed.
   *
   * @throws IllegalArgumentException if the seed is not 32 bytes
   */
  public static SigningKey fromSeed(byte[] seed) {
    if (seed.length != SEED_LENGTH) {
      throw new IllegalArgumentException("an Ed25519 seed is 32 bytes, got " + seed.length);
    }
    return new SigningKey(seed.clone());
  }

  /**
   * Returns the key whose seed a key file holds: 64 lowercase hex digits ({@link LowercaseHex}),
   * surrounding whitespace ignored. This is the format {@code mesh key generate} writes; the CLI
   * and the Spring starter both read it through here.
   *
   * @throws IllegalArgumentException if the text is not a seed of 64 lowercase hex digits; the
   *     message says what is wrong, quoting no more of the text than the one character at fault
   *     (the rest may be a secret)
   */
  public static SigningKey fromSeedHex(String text) {
    String hex = text.strip();
    if (hex.length() != 2 * SEED_LENGTH) {
      throw new IllegalArgumentException(
          "an Ed25519 seed is 64 lowercase hex digits, got " + hex.length() + " characters");
    }
    try {
      return fromSeed(LowercaseHex.decode(hex));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("an Ed25519 seed is " + e.getMessage(), e);
    }
  }

  /** Generates a fresh key from {@code random}. */
  public static SigningKey generate(SecureRandom random) {
    byte[] seed = new byte[SEED_LENGTH];
    random.nextBytes(seed);
    return new SigningKey(seed);
  }

  /** Generates a fresh key from a new {@link SecureRandom}. */
  public static SigningKey generate() {
    return generate(new SecureRandom());
  }

  /** Returns the matching public key. */
  public VerificationKey verificationKey() {
    return verificationKey;
  }

  /** Returns the 64-byte Ed25519 signature of {@code message}. */
  public byte[] sign(byte[] message) {
    byte[] sig = new byte[Ed25519.SIGNATURE_SIZE];
    params.sign(Ed25519.Algorithm.Ed25519, null, message, 0, message.length, sig, 0);
    return sig;
  }

  /**
   * Returns a copy of the secret seed. Anyone holding it can sign as this key: write it only to
   * storage as protected as the key itself.
   */
  public byte[] exportSeed() {
    return seed.clone();
  }

  /**
   * Derives a 32-byte secret for {@code purpose}: BLAKE3's {@code derive_key(purpose, seed)}, so
   * the same key and purpose always give the same bytes, and different purposes give unrelated
   * ones. It is a secret tied to this key's identity that need not be stored: whoever holds it can
   * do whatever the purpose allows, but it reveals nothing about the seed. The steward derives its
   * output-commitment opening key this way (§6.4, SPEC.md); {@code purpose} should be a context
   * string unique to the application and the use, as BLAKE3 recommends.
   */
  public byte[] deriveSubkey(String purpose) {
    return Blake3.deriveKey(purpose, seed);
  }

  @Override
  public String toString() {
    return "SigningKey[public=" + verificationKey + "]";
  }
}
