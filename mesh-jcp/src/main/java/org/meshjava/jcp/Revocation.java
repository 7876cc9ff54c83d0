package org.meshjava.jcp;

import java.time.Instant;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.meshjava.core.ContentId;
import org.meshjava.core.cbor.CborMap;
import org.meshjava.core.cbor.CborValue;
import org.meshjava.core.crypto.SignatureException;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.core.identity.DidKey;

/**
 * An issuer's signed statement that a grant is revoked from a time on (the JCP profile's
 * revocation; SPEC.md 30 §11). The statement carries the chain from the root down to the revoked
 * grant, which is the chain's leaf, so a steward that has never seen the grant can still check who
 * may revoke it: only the issuer of one of the chain's links, that is of the revoked grant or of a
 * grant above it. Revoking a grant revokes every chain that contains it.
 *
 * <p>The revoker signs, with Ed25519, the canonical CBOR of
 *
 * <pre>{@code
 * {"grant_id": hex text, "revoker": did:key text, "revoked_from": uint seconds, "statement": "revoke"}
 * }</pre>
 *
 * <p>Wire form: {@code {"chain": [envelope, …], "revoker": text, "revoked_from": uint, "signature":
 * bytes(64)}}, canonical CBOR, carried as bytes or lowercase hex. Decoding checks shape only;
 * {@link #verify()} checks the chain, the revoker's place in it and the signature. Immutable and
 * thread-safe.
 */
public final class Revocation {
  private final GrantChain chain;
  private final DidKey revoker;
  private final Instant from;
  private final byte[] signature;

  private Revocation(GrantChain chain, DidKey revoker, Instant from, byte[] signature) {
    this.chain = chain;
    this.revoker = revoker;
    this.from = from;
    this.signature = signature;
  }

  /**
   * Signs a revocation of {@code chain}'s leaf from {@code from} on (truncated to the second).
   *
   * @throws IssuanceException with {@link IssuanceProblem#WRONG_KEY} if the key did not issue any
   *     link of the chain, so a steward would refuse the statement
   */
  public static Revocation sign(SigningKey revokerKey, GrantChain chain, Instant from)
      throws IssuanceException {
    Objects.requireNonNull(chain, "chain");
    Objects.requireNonNull(from, "from");
    DidKey revoker = DidKey.of(revokerKey.verificationKey());
    if (issuerLink(chain, revoker).isEmpty()) {
      throw new IssuanceException(
          IssuanceProblem.WRONG_KEY,
          revoker
              + " issued no link of the chain; only an issuer in the chain can revoke its"
              + " link or one below it");
    }
    Instant at = Instant.ofEpochSecond(from.getEpochSecond());
    byte[] payload = signedPayload(chain.leaf().id(), revoker, at).encode();
    return new Revocation(chain, revoker, at, revokerKey.sign(payload));
  }

  /**
   * Assembles a revocation from parts without checking anything ({@link #verify()} checks). For
   * tools and tests.
   *
   * @throws IllegalArgumentException if the signature is not 64 bytes or the time is not a whole
   *     second at or after the epoch
   */
  public static Revocation of(GrantChain chain, DidKey revoker, Instant from, byte[] signature) {
    Objects.requireNonNull(chain, "chain");
    Objects.requireNonNull(revoker, "revoker");
    Objects.requireNonNull(from, "from");
    if (signature.length != SignedGrant.SIGNATURE_LENGTH) {
      throw new IllegalArgumentException("a signature is 64 bytes, got " + signature.length);
    }
    if (from.getNano() != 0 || from.getEpochSecond() < 0) {
      throw new IllegalArgumentException("revoked_from is a whole second at or after the epoch");
    }
    return new Revocation(chain, revoker, from, signature.clone());
  }

  /** Returns the map a revoker signs. */
  public static CborMap signedPayload(GrantId grantId, DidKey revoker, Instant from) {
    return CborMap.builder()
        .put("grant_id", grantId.contentId().toCborText())
        .put("revoker", revoker.value())
        .put("revoked_from", from.getEpochSecond())
        .put("statement", "revoke")
        .build();
  }

  /**
   * Checks the statement: the chain verifies (every signature, linkage, attenuation, known caveat
   * kinds), the revoker issued one of its links, and the revoker's signature covers this grant and
   * time.
   *
   * @throws GrantRefusedException {@code bad-signature}, {@code broken-chain}, {@code
   *     not-attenuated} or {@code unknown-caveat} for the chain (naming the link); {@code
   *     not-issuer} when the revoker issued no link; {@code bad-signature} with no link when the
   *     statement's own signature does not verify
   */
  public void verify() throws GrantRefusedException {
    chain.verify();
    if (issuerLink(chain, revoker).isEmpty()) {
      throw new GrantRefusedException(
          DenialLabel.NOT_ISSUER,
          revoker + " issued no link of the chain, so it cannot revoke " + grantId());
    }
    byte[] payload = signedPayload(grantId(), revoker, from).encode();
    try {
      revoker.verificationKey().verify(payload, signature);
    } catch (SignatureException e) {
      throw new GrantRefusedException(
          DenialLabel.BAD_SIGNATURE,
          "the revocation of " + grantId() + " is not signed by " + revoker);
    }
  }

  private static Optional<Integer> issuerLink(GrantChain chain, DidKey who) {
    for (int i = 0; i < chain.links().size(); i++) {
      if (chain.links().get(i).grant().issuer().equals(who)) {
        return Optional.of(i);
      }
    }
    return Optional.empty();
  }

  /** The revoked grant: the chain's leaf. */
  public GrantId grantId() {
    return chain.leaf().id();
  }

  /** The chain from the root down to the revoked grant. */
  public GrantChain chain() {
    return chain;
  }

  /** Who signed the statement. */
  public DidKey revoker() {
    return revoker;
  }

  /** The time from which decisions on the grant are refused (a whole second). */
  public Instant from() {
    return from;
  }

  /** Returns a copy of the signature. */
  public byte[] signature() {
    return signature.clone();
  }

  /** Returns the wire form. */
  public CborMap toCbor() {
    return CborMap.builder()
        .put("chain", chain.toCbor())
        .put("revoker", revoker.value())
        .put("revoked_from", from.getEpochSecond())
        .put("signature", signature)
        .build();
  }

  /** Returns the canonical encoding. */
  public byte[] encode() {
    return toCbor().encode();
  }

  /** Returns the canonical encoding as lowercase hex. */
  public String toHex() {
    return HexFormat.of().formatHex(encode());
  }

  /** The statement's content id: BLAKE3 of its canonical encoding. */
  public ContentId id() {
    return ContentId.ofBytes(encode());
  }

  /**
   * Decodes a revocation from its canonical encoding. Checks shape only.
   *
   * @throws MalformedGrantException if the bytes are not exactly a canonical revocation
   */
  public static Revocation decode(byte[] bytes) throws MalformedGrantException {
    CborValue v = FieldReader.decode(bytes, "revocation");
    FieldReader r =
        FieldReader.of(
            v, "revocation", Set.of("chain", "revoker", "revoked_from", "signature"), Set.of());
    GrantChain chain = GrantChain.fromCbor(r.value("chain"), r.path("chain"));
    DidKey revoker = r.didKey("revoker");
    long seconds = r.uint("revoked_from");
    if (seconds > Instant.MAX.getEpochSecond()) {
      throw new MalformedGrantException(
          Malformation.VALUE, r.path("revoked_from"), "out of range: " + seconds);
    }
    byte[] signature = r.bytes("signature", SignedGrant.SIGNATURE_LENGTH);
    return new Revocation(chain, revoker, Instant.ofEpochSecond(seconds), signature);
  }

  /**
   * Decodes a revocation from lowercase hex.
   *
   * @throws MalformedGrantException if the text is not hex of a canonical revocation
   */
  public static Revocation fromHex(String hex) throws MalformedGrantException {
    return decode(FieldReader.unhex(hex, "revocation"));
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Revocation other
        && chain.equals(other.chain)
        && revoker.equals(other.revoker)
        && from.equals(other.from)
        && Arrays.equals(signature, other.signature);
  }

  @Override
  public int hashCode() {
    return Objects.hash(chain, revoker, from, Arrays.hashCode(signature));
  }

  @Override
  public String toString() {
    return "Revocation[grant=" + grantId() + ", revoker=" + revoker + ", from=" + from + "]";
  }
}
