package org.meshjava.core.identity;

import java.util.Arrays;
import java.util.Objects;
import org.meshjava.core.crypto.SignatureException;
import org.meshjava.core.crypto.VerificationKey;
import org.meshjava.core.identity.DidKeyException.Reason;

/**
 * A party's identity: the W3C {@code did:key} of its Ed25519 public key, that is {@code did:key:z}
 * followed by base58btc of the multicodec prefix {@code 0xed 0x01} and the 32 key bytes. The
 * steward's {@code did:key} is the COSE {@code kid} of its receipts (§2, §6).
 *
 * <p>Immutable and thread-safe. Two instances are equal when their text is equal; parsing
 * guarantees the text is the unique encoding of its key.
 */
public final class DidKey {
  private static final String PREFIX = "did:key:z";
  private static final byte[] MULTICODEC_ED25519 = {(byte) 0xed, 0x01};

  private final String value;
  private final VerificationKey key;

  private DidKey(String value, VerificationKey key) {
    this.value = value;
    this.key = key;
  }

  /** Returns the {@code did:key} naming {@code key}. */
  public static DidKey of(VerificationKey key) {
    byte[] raw = key.bytes();
    byte[] prefixed = new byte[2 + raw.length];
    System.arraycopy(MULTICODEC_ED25519, 0, prefixed, 0, 2);
    System.arraycopy(raw, 0, prefixed, 2, raw.length);
    return new DidKey(PREFIX + Base58Btc.encode(prefixed), key);
  }

  /**
   * Parses a {@code did:key} string.
   *
   * @throws DidKeyException naming what is wrong: the prefix, the base58 text, the multicodec, the
   *     key length or the curve point
   */
  public static DidKey parse(String text) throws DidKeyException {
    Objects.requireNonNull(text, "text");
    DidKey known = PARSED.get(text);
    if (known != null) {
      return known;
    }
    DidKey parsed = parseUncached(text);
    if (PARSED.size() >= PARSED_LIMIT) {
      PARSED.clear();
    }
    PARSED.put(text, parsed);
    return parsed;
  }

  /**
   * Identities already parsed, by text. Parsing decompresses a curve point, and a steward replaying
   * its journal parses the same few identities hundreds of thousands of times. Only successful
   * parses are kept, and the cache is bounded so hostile input cannot grow it.
   */
  private static final java.util.concurrent.ConcurrentHashMap<String, DidKey> PARSED =
      new java.util.concurrent.ConcurrentHashMap<>();

  /** The most identities the cache holds. */
  static final int PARSED_LIMIT = 4096;

  /**
   * How many identities the cache holds now. Package-private, for the test that the bound holds: a
   * cache that grew without it would let hostile input (any number of valid keys) exhaust memory.
   */
  static int parsedCacheSize() {
    return PARSED.size();
  }

  private static DidKey parseUncached(String text) throws DidKeyException {
    if (!text.startsWith(PREFIX)) {
      throw new DidKeyException(
          Reason.PREFIX, "a did:key starts with 'did:key:z': " + abbreviate(text));
    }
    if (text.length() > 128) {
      throw new DidKeyException(
          Reason.TOO_LONG, "did:key is too long (" + text.length() + " characters)");
    }
    byte[] raw = Base58Btc.decode(text.substring(PREFIX.length()));
    if (raw == null) {
      throw new DidKeyException(
          Reason.NOT_BASE58, "did:key has a character outside base58btc: " + abbreviate(text));
    }
    if (raw.length < 2 || raw[0] != MULTICODEC_ED25519[0] || raw[1] != MULTICODEC_ED25519[1]) {
      throw new DidKeyException(
          Reason.NOT_ED25519, "did:key is not an Ed25519 key (multicodec 0xed01)");
    }
    if (raw.length != 34) {
      throw new DidKeyException(
          Reason.KEY_LENGTH, "did:key holds " + (raw.length - 2) + " key bytes, not 32");
    }
    VerificationKey key;
    try {
      key = VerificationKey.of(Arrays.copyOfRange(raw, 2, 34));
    } catch (SignatureException e) {
      throw new DidKeyException(Reason.INVALID_KEY, "did:key: " + e.getMessage());
    }
    DidKey canonical = of(key);
    if (!canonical.value.equals(text)) {
      throw new DidKeyException(
          Reason.NOT_CANONICAL, "did:key is not in its canonical encoding: " + abbreviate(text));
    }
    return canonical;
  }

  /** Returns the public key this identity names. */
  public VerificationKey verificationKey() {
    return key;
  }

  /** Returns the {@code did:key:z…} text. */
  public String value() {
    return value;
  }

  private static String abbreviate(String s) {
    return s.length() <= 64 ? s : s.substring(0, 61) + "...";
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof DidKey other && value.equals(other.value);
  }

  @Override
  public int hashCode() {
    return value.hashCode();
  }

  @Override
  public String toString() {
    return value;
  }
}
