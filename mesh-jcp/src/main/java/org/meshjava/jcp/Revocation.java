package org.meshjava.jcp;

import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import org.meshjava.core.ContentId;
import org.meshjava.core.DenialLabel;
import org.meshjava.core.cbor.CborInt;
import org.meshjava.core.cbor.CborMap;
import org.meshjava.core.cbor.CborText;
import org.meshjava.core.cbor.CborValue;
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
public final class Revocation extends SignedChainStatement<Instant> {
  private static final Form<Instant> FORM =
      new Form<>("revocation", "revoker", "revoked_from", Revocation::readFrom);

  private Revocation(GrantChain chain, DidKey revoker, Instant from, byte[] signature) {
    super(FORM, chain, revoker, from, signature);
  }

  /**
   * Signs a revocation of {@code chain}'s leaf from {@code from} on (truncated to the second).
   *
   * @throws IssuanceException with {@link IssuanceProblem#WRONG_KEY} if the key did not issue any
   *     link of the chain, so a steward would refuse the statement
   * @throws IllegalArgumentException if {@code from} is before the epoch
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
    if (from.isBefore(Instant.EPOCH)) {
      // revoked_from is a uint: signed anyway, the statement would be one no steward can decode.
      throw new IllegalArgumentException(
          "revoked_from must not be before " + Instant.EPOCH + ": " + from);
    }
    Instant at = Instant.ofEpochSecond(from.getEpochSecond());
    byte[] payload = signedPayload(chain.leaf().id(), revoker, at);
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
    byte[] copy = SignedGrant.signatureCopy(signature);
    if (from.getNano() != 0 || from.getEpochSecond() < 0) {
      throw new IllegalArgumentException("revoked_from is a whole second at or after the epoch");
    }
    return new Revocation(chain, revoker, from, copy);
  }

  /**
   * Returns the bytes a revoker signs: the canonical CBOR map {@code {grant_id, revoker,
   * revoked_from, statement: "revoke"}}.
   */
  public static byte[] signedPayload(GrantId grantId, DidKey revoker, Instant from) {
    return CborMap.builder()
        .put("grant_id", new CborText(grantId.contentId().hex()))
        .put("revoker", revoker.value())
        .put("revoked_from", from.getEpochSecond())
        .put("statement", "revoke")
        .build()
        .encode();
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
    chain().verify();
    DidKey revoker = revoker();
    if (issuerLink(chain(), revoker).isEmpty()) {
      throw new GrantRefusedException(
          DenialLabel.NOT_ISSUER,
          revoker + " issued no link of the chain, so it cannot revoke " + grantId());
    }
    verifySignature(
        signedPayload(grantId(), revoker, from()),
        () -> "the revocation of " + grantId() + " is not signed by " + revoker);
  }

  private static Optional<Integer> issuerLink(GrantChain chain, DidKey who) {
    for (int i = 0; i < chain.links().size(); i++) {
      if (chain.links().get(i).grant().issuer().equals(who)) {
        return Optional.of(i);
      }
    }
    return Optional.empty();
  }

  /** Who signed the statement. */
  public DidKey revoker() {
    return signer();
  }

  /** The time from which decisions on the grant are refused (a whole second). */
  public Instant from() {
    return field();
  }

  @Override
  CborValue fieldCbor() {
    return CborInt.of(from().getEpochSecond());
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
    return decode(bytes, FORM, Revocation::new);
  }

  private static Instant readFrom(FieldReader fields, String key) throws MalformedGrantException {
    long seconds = fields.uint(key);
    if (seconds > Instant.MAX.getEpochSecond()) {
      throw new MalformedGrantException(
          Malformation.VALUE, fields.path(key), "out of range: " + seconds);
    }
    return Instant.ofEpochSecond(seconds);
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
  public String toString() {
    return "Revocation[grant=" + grantId() + ", revoker=" + revoker() + ", from=" + from() + "]";
  }
}
