package org.meshjava.jcp;

import java.util.Arrays;
import java.util.HexFormat;
import java.util.Objects;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.meshjava.core.ContentId;
import org.meshjava.core.cbor.CborMap;
import org.meshjava.core.cbor.CborValue;
import org.meshjava.core.crypto.SignatureException;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.core.identity.DidKey;

/**
 * A grant chain presented for one request (§2.1): the chain, the caller's {@code did:key}, a
 * 16-byte nonce, and the caller's Ed25519 signature over the canonical CBOR of
 *
 * <pre>{@code
 * {"request_id": hex text, "grant_id": hex text, "caller": did:key text, "nonce": bytes(16)}
 * }</pre>
 *
 * where {@code request_id} is the request's content id and {@code grant_id} the leaf's id. Holding
 * a grant is not enough to spend it; only the leaf's issuer can sign a presentation the gate
 * accepts, and only once per nonce.
 *
 * <p>Wire form: {@code {"chain": [envelope, …], "caller": text, "nonce": bytes(16), "signature":
 * bytes(64)}}, canonical CBOR, carried as bytes or as lowercase hex. Immutable and thread-safe.
 */
public final class Presentation {
  private final GrantChain chain;
  private final DidKey caller;
  private final PresentationNonce nonce;
  private final byte[] signature;

  private Presentation(GrantChain chain, DidKey caller, PresentationNonce nonce, byte[] signature) {
    this.chain = chain;
    this.caller = caller;
    this.nonce = nonce;
    this.signature = signature;
  }

  /**
   * Signs a presentation of {@code chain} for the request {@code requestId} with a fresh random
   * nonce.
   *
   * @throws IssuanceException with {@link IssuanceProblem#WRONG_KEY} if {@code callerKey} is not
   *     the leaf's issuer (the gate would refuse it)
   */
  public static Presentation sign(SigningKey callerKey, GrantChain chain, ContentId requestId)
      throws IssuanceException {
    return sign(callerKey, chain, requestId, PresentationNonce.random());
  }

  /**
   * Signs a presentation with the given nonce (for vectors; a reused nonce is refused as spent).
   *
   * @throws IssuanceException with {@link IssuanceProblem#WRONG_KEY} if {@code callerKey} is not
   *     the leaf's issuer
   */
  public static Presentation sign(
      SigningKey callerKey, GrantChain chain, ContentId requestId, PresentationNonce nonce)
      throws IssuanceException {
    Objects.requireNonNull(chain, "chain");
    Objects.requireNonNull(requestId, "requestId");
    Objects.requireNonNull(nonce, "nonce");
    DidKey caller = DidKey.of(callerKey.verificationKey());
    if (!caller.equals(chain.leaf().grant().issuer())) {
      throw new IssuanceException(
          IssuanceProblem.WRONG_KEY,
          caller
              + " is not the leaf's issuer "
              + chain.leaf().grant().issuer()
              + "; only the issuer may present it");
    }
    byte[] payload = signedPayload(requestId, chain.leaf().id(), caller, nonce).encode();
    return new Presentation(chain, caller, nonce, callerKey.sign(payload));
  }

  /**
   * Assembles a presentation from parts without checking anything (the gate checks). For tools and
   * tests.
   *
   * @throws IllegalArgumentException if the signature is not 64 bytes
   */
  public static Presentation of(
      GrantChain chain, DidKey caller, PresentationNonce nonce, byte[] signature) {
    Objects.requireNonNull(chain, "chain");
    Objects.requireNonNull(caller, "caller");
    Objects.requireNonNull(nonce, "nonce");
    if (signature.length != SignedGrant.SIGNATURE_LENGTH) {
      throw new IllegalArgumentException("a signature is 64 bytes, got " + signature.length);
    }
    return new Presentation(chain, caller, nonce, signature.clone());
  }

  /** Returns the map a caller signs: {@code {request_id, grant_id, caller, nonce}} (§2.1). */
  public static CborMap signedPayload(
      ContentId requestId, GrantId grantId, DidKey caller, PresentationNonce nonce) {
    return CborMap.builder()
        .put("request_id", requestId.toCborText())
        .put("grant_id", grantId.contentId().toCborText())
        .put("caller", caller.value())
        .put("nonce", nonce.bytes())
        .build();
  }

  /**
   * Checks that the caller is the leaf's issuer and that its signature covers {@code requestId}.
   *
   * @throws GrantRefusedException {@code not-issuer} or {@code bad-signature}; either way {@link
   *     GrantRefusedException#callerNotAuthenticated()} is true
   */
  public void verifyFor(ContentId requestId) throws GrantRefusedException {
    if (java.util.Objects.equals(requestId, verifiedFor)) {
      return;
    }
    DidKey issuer = chain.leaf().grant().issuer();
    if (!caller.equals(issuer)) {
      throw new GrantRefusedException(
          DenialLabel.NOT_ISSUER, "caller " + caller + " is not the leaf's issuer " + issuer);
    }
    byte[] payload = signedPayload(requestId, grantId(), caller, nonce).encode();
    try {
      caller.verificationKey().verify(payload, signature);
    } catch (SignatureException e) {
      throw new GrantRefusedException(
          DenialLabel.BAD_SIGNATURE,
          "the presentation is not signed by its caller for request " + requestId);
    }
    verifiedFor = requestId;
  }

  /**
   * The request id a successful {@link #verifyFor} last checked, so checking it again costs no
   * signature verification. Every field it depends on is final, so the answer cannot change; a
   * journal replay verifies presentations in parallel first and then decides them in order.
   */
  private volatile @Nullable ContentId verifiedFor;

  /** Returns the chain. */
  public GrantChain chain() {
    return chain;
  }

  /** Returns the caller. */
  public DidKey caller() {
    return caller;
  }

  /** Returns the nonce. */
  public PresentationNonce nonce() {
    return nonce;
  }

  /** Returns a copy of the signature. */
  public byte[] signature() {
    return signature.clone();
  }

  /** Returns the leaf's id, the {@code grant_id} this presentation spends. */
  public GrantId grantId() {
    return chain.leaf().id();
  }

  /** Returns the wire form. */
  public CborMap toCbor() {
    return CborMap.builder()
        .put("chain", chain.toCbor())
        .put("caller", caller.value())
        .put("nonce", nonce.bytes())
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

  /**
   * Decodes a presentation from its canonical encoding. Checks shape only, not signatures.
   *
   * @throws MalformedGrantException if the bytes are not exactly a canonical presentation
   */
  public static Presentation decode(byte[] bytes) throws MalformedGrantException {
    CborValue v = FieldReader.decode(bytes, "presentation");
    FieldReader r =
        FieldReader.of(
            v, "presentation", Set.of("chain", "caller", "nonce", "signature"), Set.of());
    GrantChain chain = GrantChain.fromCbor(r.value("chain"), r.path("chain"));
    DidKey caller = r.didKey("caller");
    PresentationNonce nonce = PresentationNonce.of(r.bytes("nonce", PresentationNonce.LENGTH));
    byte[] signature = r.bytes("signature", SignedGrant.SIGNATURE_LENGTH);
    return new Presentation(chain, caller, nonce, signature);
  }

  /**
   * Decodes a presentation from lowercase hex.
   *
   * @throws MalformedGrantException if the text is not hex of a canonical presentation
   */
  public static Presentation fromHex(String hex) throws MalformedGrantException {
    return decode(FieldReader.unhex(hex, "presentation"));
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Presentation other
        && chain.equals(other.chain)
        && caller.equals(other.caller)
        && nonce.equals(other.nonce)
        && Arrays.equals(signature, other.signature);
  }

  @Override
  public int hashCode() {
    return Objects.hash(chain, caller, nonce, Arrays.hashCode(signature));
  }

  @Override
  public String toString() {
    return "Presentation[grant=" + grantId() + ", caller=" + caller + ", nonce=" + nonce + "]";
  }
}
