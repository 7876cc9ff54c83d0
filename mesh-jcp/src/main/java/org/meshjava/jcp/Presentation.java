package org.meshjava.jcp;

import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.meshjava.core.ContentId;
import org.meshjava.core.DenialLabel;
import org.meshjava.core.cbor.CborBytes;
import org.meshjava.core.cbor.CborMap;
import org.meshjava.core.cbor.CborText;
import org.meshjava.core.cbor.CborValue;
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
public final class Presentation extends SignedChainStatement<PresentationNonce> {
  private static final Form<PresentationNonce> FORM =
      new Form<>("presentation", "caller", "nonce", Presentation::readNonce);

  private Presentation(GrantChain chain, DidKey caller, PresentationNonce nonce, byte[] signature) {
    super(FORM, chain, caller, nonce, signature);
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
    byte[] payload = signedPayload(requestId, chain.leaf().id(), caller, nonce);
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
    return new Presentation(chain, caller, nonce, SignedGrant.signatureCopy(signature));
  }

  /**
   * Returns the bytes a caller signs: the canonical CBOR map {@code {request_id, grant_id, caller,
   * nonce}} (§2.1), the ids as hex text.
   */
  public static byte[] signedPayload(
      ContentId requestId, GrantId grantId, DidKey caller, PresentationNonce nonce) {
    return CborMap.builder()
        .put("request_id", new CborText(requestId.hex()))
        .put("grant_id", new CborText(grantId.contentId().hex()))
        .put("caller", caller.value())
        .put("nonce", nonce.bytes())
        .build()
        .encode();
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
    DidKey caller = caller();
    DidKey issuer = chain().leaf().grant().issuer();
    if (!caller.equals(issuer)) {
      throw new GrantRefusedException(
          DenialLabel.NOT_ISSUER, "caller " + caller + " is not the leaf's issuer " + issuer);
    }
    verifySignature(
        signedPayload(requestId, grantId(), caller, nonce()),
        () -> "the presentation is not signed by its caller for request " + requestId);
    verifiedFor = requestId;
  }

  /**
   * The request id a successful {@link #verifyFor} last checked, so checking it again costs no
   * signature verification. Every field it depends on is final, so the answer cannot change; a
   * journal replay verifies presentations in parallel first and then decides them in order.
   */
  private volatile @Nullable ContentId verifiedFor;

  /** Returns the caller. */
  public DidKey caller() {
    return signer();
  }

  /** Returns the nonce. */
  public PresentationNonce nonce() {
    return field();
  }

  @Override
  CborValue fieldCbor() {
    return CborBytes.of(nonce().bytes());
  }

  /**
   * Decodes a presentation from its canonical encoding. Checks shape only, not signatures.
   *
   * @throws MalformedGrantException if the bytes are not exactly a canonical presentation
   */
  public static Presentation decode(byte[] bytes) throws MalformedGrantException {
    return decode(bytes, FORM, Presentation::new);
  }

  private static PresentationNonce readNonce(FieldReader fields, String key)
      throws MalformedGrantException {
    return PresentationNonce.of(fields.bytes(key, PresentationNonce.LENGTH));
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
  public String toString() {
    return "Presentation[grant=" + grantId() + ", caller=" + caller() + ", nonce=" + nonce() + "]";
  }
}
