package org.meshjava.receipt;

import java.nio.charset.StandardCharsets;
import org.meshjava.core.cbor.CanonicalCbor;
import org.meshjava.core.cbor.CborBytes;
import org.meshjava.core.cbor.CborDecodeException;
import org.meshjava.core.cbor.CborInt;
import org.meshjava.core.cbor.CborMap;
import org.meshjava.core.cbor.CborText;
import org.meshjava.core.cbor.CborValue;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.core.identity.DidKey;
import org.meshjava.core.identity.DidKeyException;
import org.meshjava.receipt.internal.CoseSign1;

/**
 * JCR-1: a mesh/1 receipt's signed core in a COSE_Sign1 envelope signed with Ed25519 (§6).
 *
 * <p>The profile, exactly: tag 18 over {@code [protected, {}, payload, signature]}; {@code
 * protected} is the byte string of the canonical map {@code {1: -8, 4: kid}} with {@code kid} the
 * UTF-8 bytes of the steward's {@code did:key}; the unprotected header is empty; {@code payload} is
 * the canonical signed core; the signature is Ed25519 over the {@code Sig_structure} {@code
 * ["Signature1", protected, h'', payload]}. Any COSE library can verify it with the key the kid
 * names.
 *
 * <p>Opening checks, in order: canonical CBOR, tag, shape, algorithm, header keys, kid, empty
 * unprotected header, signature, then the payload as a receipt (strict keys, couplings, derived
 * figures) and that its {@code steward} is the kid. Stateless and thread-safe.
 */
public final class Jcr1 {
  /** COSE header label of the algorithm. */
  static final long HEADER_ALG = 1;

  /** COSE header label of the key id. */
  static final long HEADER_KID = 4;

  /** COSE algorithm id of EdDSA. */
  static final long ALG_EDDSA = -8;

  private Jcr1() {}

  /**
   * Returns the serialized protected header for a steward: {@code {1: -8, 4: kid}}.
   *
   * @param steward the sealing steward, whose {@code did:key} text is the kid
   * @return the header's canonical CBOR bytes
   */
  public static byte[] protectedHeader(DidKey steward) {
    return CborMap.builder()
        .put(HEADER_ALG, CborInt.of(ALG_EDDSA))
        .put(HEADER_KID, CborBytes.of(steward.value().getBytes(StandardCharsets.UTF_8)))
        .build()
        .encode();
  }

  /**
   * Seals {@code receipt} with {@code key}.
   *
   * @param receipt the receipt, whose {@code steward} must be the key's identity
   * @param key the steward's signing key
   * @return the receipt with its envelope
   * @throws IllegalArgumentException if the receipt's steward is not the key's identity
   */
  public static SealedReceipt seal(MeshReceipt receipt, SigningKey key) {
    return new Sealer(key).seal(receipt);
  }

  /**
   * Seals receipts for one steward, with its identity and protected header computed once. Immutable
   * and thread-safe.
   */
  public static final class Sealer {
    private static final CborMap EMPTY = CborMap.of(java.util.List.of());

    private final SigningKey key;
    private final DidKey steward;
    private final byte[] protectedHeader;

    /**
     * Creates a sealer for {@code key}.
     *
     * @param key the steward's signing key
     */
    public Sealer(SigningKey key) {
      this.key = key;
      this.steward = DidKey.of(key.verificationKey());
      this.protectedHeader = protectedHeader(steward);
    }

    /**
     * The sealing identity.
     *
     * @return the {@code did:key} of this sealer's key
     */
    public DidKey steward() {
      return steward;
    }

    /**
     * Seals {@code receipt}.
     *
     * @param receipt the receipt, whose {@code steward} must be this sealer's identity
     * @return the receipt with its envelope
     * @throws IllegalArgumentException if the receipt's steward is not this sealer's identity
     */
    public SealedReceipt seal(MeshReceipt receipt) {
      if (!steward.equals(receipt.steward())) {
        throw new IllegalArgumentException(
            "receipt names steward " + receipt.steward() + " but the key is " + steward);
      }
      // The core is written straight to its bytes (no map), and the envelope, a fresh array no one
      // else holds, is adopted uncopied.
      return new SealedReceipt(
          receipt,
          Envelope.adopt(
              CoseSign1.signEncoded(protectedHeader, EMPTY, SignedCoreBytes.of(receipt), key)));
    }
  }

  /**
   * Verifies an envelope and returns the receipt it seals.
   *
   * <p>An envelope names its own signer: a receipt that opens was sealed by the key its kid names,
   * whoever that is. To trust it as a given steward's, compare {@code
   * open(envelope).receipt().steward()} with that steward's {@code did:key} (from {@code
   * /v1/mesh/steward}, or {@code Steward.identity()}).
   *
   * @param envelope the COSE_Sign1 envelope
   * @return the receipt with the envelope and the signed core as they were verified
   * @throws ReceiptException naming the first rule the envelope breaks ({@link
   *     ReceiptException#reason()})
   * @throws NullPointerException if {@code envelope} is null
   */
  public static SealedReceipt open(Envelope envelope) throws ReceiptException {
    CoseSign1 cose = CoseSign1.decode(envelope.bytes());
    DidKey kid = checkHeaders(cose);
    cose.verify(kid.verificationKey());
    CborValue payload = decodePart(cose.payload(), "payload");
    MeshReceipt receipt = SignedCore.decode(payload);
    if (!receipt.steward().equals(kid)) {
      throw new ReceiptException(
          ReceiptException.Reason.STEWARD_MISMATCH,
          "receipt steward " + receipt.steward() + " is not the kid " + kid);
    }
    // A payload that decoded as a receipt is a map: the signed core as it was signed.
    return new SealedReceipt(receipt, envelope, (CborMap) payload);
  }

  /**
   * Verifies envelope bytes; see {@link #open(Envelope)}, including what it does not check.
   *
   * @param envelope the envelope's bytes, copied
   * @return the receipt with the envelope and the signed core as they were verified
   * @throws ReceiptException naming the first rule the envelope breaks
   * @throws NullPointerException if {@code envelope} is null
   */
  public static SealedReceipt open(byte[] envelope) throws ReceiptException {
    return open(Envelope.of(envelope));
  }

  private static DidKey checkHeaders(CoseSign1 cose) throws ReceiptException {
    CborValue header = decodePart(cose.protectedHeader(), "protected header");
    if (!(header instanceof CborMap map)) {
      throw new ReceiptException(
          ReceiptException.Reason.MALFORMED_ENVELOPE, "the protected header is not a map");
    }
    CborValue alg = map.get(CborInt.of(HEADER_ALG)).orElse(null);
    if (alg == null) {
      throw new ReceiptException(
          ReceiptException.Reason.UNSUPPORTED_ALGORITHM,
          "the protected header names no algorithm; JCR-1 requires alg -8 (EdDSA) there");
    }
    if (!alg.equals(CborInt.of(ALG_EDDSA))) {
      throw new ReceiptException(
          ReceiptException.Reason.UNSUPPORTED_ALGORITHM,
          "algorithm " + written(alg) + " is not -8 (EdDSA with Ed25519)");
    }
    for (CborMap.Entry e : map.entries()) {
      if (!e.key().equals(CborInt.of(HEADER_ALG)) && !e.key().equals(CborInt.of(HEADER_KID))) {
        throw new ReceiptException(
            ReceiptException.Reason.UNEXPECTED_HEADER,
            "protected header label "
                + written(e.key())
                + " is not part of JCR-1, whose protected header holds alg (1) and kid (4) only");
      }
    }
    CborValue kid = map.get(CborInt.of(HEADER_KID)).orElse(null);
    if (!(kid instanceof CborBytes kidBytes)) {
      throw new ReceiptException(
          ReceiptException.Reason.BAD_KID, "the protected header has no byte-string kid");
    }
    DidKey did;
    try {
      did =
          DidKey.parse(
              StandardCharsets.UTF_8
                  .newDecoder()
                  .decode(java.nio.ByteBuffer.wrap(kidBytes.bytes()))
                  .toString());
    } catch (DidKeyException e) {
      throw new ReceiptException(
          ReceiptException.Reason.BAD_KID, "kid is not a did:key: " + e.getMessage(), e);
    } catch (java.nio.charset.CharacterCodingException e) {
      // The decoder's own message ("Input length = 1") names nothing a reader can act on.
      throw new ReceiptException(
          ReceiptException.Reason.BAD_KID,
          "kid is not a did:key: its bytes are not UTF-8 text (a did:key is ASCII)",
          e);
    }
    if (cose.unprotectedHeader().size() != 0) {
      throw new ReceiptException(
          ReceiptException.Reason.UNPROTECTED_NOT_EMPTY,
          "JCR-1 puts nothing in the unprotected header");
    }
    return did;
  }

  /**
   * A header label or value as it reads in the envelope (an integer, a quoted text), not as Java
   * prints the decoded value ("CborInt[value=3]").
   */
  private static String written(CborValue v) {
    return switch (v) {
      case CborInt i -> Long.toString(i.value());
      case CborText t -> "\"" + t.value() + "\"";
      default -> "of another type";
    };
  }

  /**
   * Decodes {@code part} of the envelope (its payload or protected header) as canonical CBOR.
   *
   * @throws ReceiptException {@code NOT_CANONICAL_CBOR}, naming the part, when it is not
   */
  private static CborValue decodePart(byte[] bytes, String part) throws ReceiptException {
    try {
      return CanonicalCbor.decode(bytes);
    } catch (CborDecodeException e) {
      throw new ReceiptException(
          ReceiptException.Reason.NOT_CANONICAL_CBOR, part + ": " + e.getMessage(), e);
    }
  }
}
