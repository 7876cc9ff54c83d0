package org.meshjava.jcp;

import java.util.Arrays;
import java.util.HexFormat;
import java.util.Objects;
import java.util.Set;
import org.meshjava.core.ContentId;
import org.meshjava.core.DenialLabel;
import org.meshjava.core.cbor.CborMap;
import org.meshjava.core.cbor.CborValue;
import org.meshjava.core.crypto.SignatureException;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.core.identity.DidKey;

/**
 * A {@link Grant} with its issuer's Ed25519 signature over the grant's canonical CBOR encoding.
 *
 * <p>Envelope (canonical CBOR): {@code {"grant": <grant map>, "signature": bytes(64)}}. The grant
 * sits in the envelope as a map, not as a byte string: canonical decoding re-encodes to exactly the
 * bytes it read, so the signed bytes are recovered without a second layer of wrapping.
 *
 * <p>{@link #id()} is the BLAKE3 hash of the whole envelope, signature included. That way the id
 * names one signed object, which a child's {@code parent} and a receipt's {@code grant_id} can
 * point at without ambiguity. (Ed25519 signatures from this library are deterministic, and the
 * verifier refuses malleated ones, so only the issuer could mint a second id for the same grant,
 * and the issuer can always issue a fresh grant anyway.)
 *
 * <p>Decoding does not verify the signature: a signed grant is a public object that may be
 * inspected before it is trusted. {@link #verifySignature()} or the {@link Gate} does that.
 * Immutable and thread-safe.
 */
public final class SignedGrant {
  /** Length of an Ed25519 signature. */
  public static final int SIGNATURE_LENGTH = 64;

  private final Grant grant;
  private final byte[] signature;
  private final byte[] encoded;
  private final GrantId id;

  private SignedGrant(Grant grant, byte[] signature) {
    this.grant = grant;
    this.signature = signature;
    this.encoded = toCbor(grant, signature).encode();
    this.id = new GrantId(ContentId.ofBytes(encoded));
  }

  /**
   * Signs {@code grant} with its issuer's key.
   *
   * @throws IssuanceException with {@link IssuanceProblem#WRONG_KEY} if the key is not the grant's
   *     issuer
   */
  public static SignedGrant sign(SigningKey issuerKey, Grant grant) throws IssuanceException {
    Objects.requireNonNull(issuerKey, "issuerKey");
    Objects.requireNonNull(grant, "grant");
    DidKey signer = DidKey.of(issuerKey.verificationKey());
    if (!signer.equals(grant.issuer())) {
      throw new IssuanceException(
          IssuanceProblem.WRONG_KEY,
          "key " + signer + " cannot sign a grant issued by " + grant.issuer());
    }
    return new SignedGrant(grant, issuerKey.sign(grant.toCbor().encode()));
  }

  /**
   * Assembles a signed grant from parts without checking the signature (for tests and tools that
   * need a deliberately wrong one; the gate checks every signature).
   *
   * @throws IllegalArgumentException if the signature is not 64 bytes
   */
  public static SignedGrant of(Grant grant, byte[] signature) {
    Objects.requireNonNull(grant, "grant");
    return new SignedGrant(grant, signatureCopy(signature));
  }

  /**
   * A copy of a signature given to an {@code of} that assembles from parts: this one's, a
   * presentation's or a revocation's.
   *
   * @throws IllegalArgumentException if it is not 64 bytes
   */
  static byte[] signatureCopy(byte[] signature) {
    if (signature.length != SIGNATURE_LENGTH) {
      throw new IllegalArgumentException("a signature is 64 bytes, got " + signature.length);
    }
    return signature.clone();
  }

  /**
   * Decodes an envelope from its canonical CBOR bytes.
   *
   * @throws MalformedGrantException if the bytes are not exactly a canonical envelope
   */
  public static SignedGrant decode(byte[] bytes) throws MalformedGrantException {
    SignedGrant g = fromCbor(FieldReader.decode(bytes, "signed_grant"), "signed_grant");
    return g;
  }

  /**
   * Decodes an envelope from lowercase hex.
   *
   * @throws MalformedGrantException if the text is not hex of a canonical envelope
   */
  public static SignedGrant fromHex(String hex) throws MalformedGrantException {
    return decode(FieldReader.unhex(hex, "signed_grant"));
  }

  static SignedGrant fromCbor(CborValue value, String path) throws MalformedGrantException {
    SignedGrant known = DecodedEnvelopes.get(value);
    if (known != null) {
      return known;
    }
    SignedGrant g = decoded(value, path);
    DecodedEnvelopes.put(value, g);
    return g;
  }

  /** Reads an envelope from its value, every field checked; {@link #fromCbor} memoises this. */
  static SignedGrant decoded(CborValue value, String path) throws MalformedGrantException {
    FieldReader r = FieldReader.of(value, path, Set.of("grant", "signature"), Set.of());
    Grant grant = Grant.fromCbor(r.value("grant"), r.path("grant"));
    byte[] signature = r.bytes("signature", SIGNATURE_LENGTH);
    SignedGrant g = new SignedGrant(grant, signature);
    // Belt and braces: every field reader checks its own canonical form, and this catches any
    // normalisation we missed, which would otherwise make the signature verify over other bytes.
    if (!Arrays.equals(g.encoded, value.encode())) {
      throw new MalformedGrantException(
          Malformation.VALUE, path, "the grant does not re-encode to the bytes it was read from");
    }
    return g;
  }

  /** Returns the grant. */
  public Grant grant() {
    return grant;
  }

  /** Returns a copy of the 64-byte signature. */
  public byte[] signature() {
    return signature.clone();
  }

  /** Returns the grant id. */
  public GrantId id() {
    return id;
  }

  /** Returns a copy of the canonical envelope bytes. */
  public byte[] encode() {
    return encoded.clone();
  }

  /** The length of the canonical envelope, without copying it. */
  int encodedLength() {
    return encoded.length;
  }

  /** Writes the canonical envelope into {@code out} at {@code offset}; returns the end. */
  int encodeInto(byte[] out, int offset) {
    System.arraycopy(encoded, 0, out, offset, encoded.length);
    return offset + encoded.length;
  }

  /** Returns the envelope bytes as lowercase hex. */
  public String toHex() {
    return HexFormat.of().formatHex(encoded);
  }

  /** The envelope as a CBOR value. */
  CborMap toCbor() {
    return toCbor(grant, signature);
  }

  /**
   * Verifies the issuer's signature.
   *
   * @throws GrantRefusedException with {@link DenialLabel#BAD_SIGNATURE} if it does not verify
   */
  public void verifySignature() throws GrantRefusedException {
    verifySignature(-1);
  }

  void verifySignature(int link) throws GrantRefusedException {
    try {
      grant.issuer().verificationKey().verify(grant.toCbor().encode(), signature);
    } catch (SignatureException e) {
      throw new GrantRefusedException(
          DenialLabel.BAD_SIGNATURE, "grant " + id + " is not signed by its issuer", link);
    }
  }

  private static CborMap toCbor(Grant grant, byte[] signature) {
    return CborMap.builder().put("grant", grant.toCbor()).put("signature", signature).build();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof SignedGrant other && Arrays.equals(encoded, other.encoded);
  }

  @Override
  public int hashCode() {
    return id.hashCode();
  }

  @Override
  public String toString() {
    return "SignedGrant[" + id + ", " + grant.issuer() + " -> " + grant.subject() + "]";
  }
}
