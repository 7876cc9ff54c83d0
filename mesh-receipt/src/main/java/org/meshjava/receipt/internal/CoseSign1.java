package org.meshjava.receipt.internal;

import java.util.Arrays;
import java.util.Objects;
import org.meshjava.core.cbor.CanonicalCbor;
import org.meshjava.core.cbor.CborArray;
import org.meshjava.core.cbor.CborBytes;
import org.meshjava.core.cbor.CborDecodeException;
import org.meshjava.core.cbor.CborMap;
import org.meshjava.core.cbor.CborTag;
import org.meshjava.core.cbor.CborText;
import org.meshjava.core.cbor.CborValue;
import org.meshjava.core.crypto.SignatureException;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.core.crypto.VerificationKey;
import org.meshjava.receipt.Jcr1;
import org.meshjava.receipt.ReceiptException;

/**
 * A COSE_Sign1 structure (RFC 9052 §4.2): {@code [protected, unprotected, payload, signature]}
 * under CBOR tag 18, with its {@code Sig_structure} (RFC 9052 §4.4). This class knows COSE, not
 * mesh: {@link Jcr1} layers the JCR-1 profile's rules on top.
 *
 * <p>Immutable; byte arrays are copied in and out.
 */
public final class CoseSign1 {
  /** The CBOR tag of a COSE_Sign1 message. */
  public static final long TAG = 18;

  private static final String CONTEXT = "Signature1";

  private final byte[] protectedHeader;
  private final CborMap unprotectedHeader;
  private final byte[] payload;
  private final byte[] signature;

  private CoseSign1(byte[] protectedHeader, CborMap unprotected, byte[] payload, byte[] signature) {
    this.protectedHeader = protectedHeader;
    this.unprotectedHeader = unprotected;
    this.payload = payload;
    this.signature = signature;
  }

  /**
   * Signs {@code payload} with Ed25519 under the given headers. Ed25519 is deterministic, so the
   * same inputs give the same bytes.
   */
  public static CoseSign1 sign(
      byte[] protectedHeader, CborMap unprotected, byte[] payload, SigningKey key) {
    byte[] p = protectedHeader.clone();
    byte[] body = payload.clone();
    byte[] sig = key.sign(sigStructure(p, body));
    return new CoseSign1(p, Objects.requireNonNull(unprotected), body, sig);
  }

  /**
   * Parses a tagged COSE_Sign1 from canonical CBOR.
   *
   * @throws ReceiptException with {@code NOT_CANONICAL_CBOR}, {@code WRONG_TAG} or {@code
   *     MALFORMED_ENVELOPE}
   */
  public static CoseSign1 decode(byte[] bytes) throws ReceiptException {
    CborValue v;
    try {
      v = CanonicalCbor.decode(bytes);
    } catch (CborDecodeException e) {
      throw new ReceiptException(
          ReceiptException.Reason.NOT_CANONICAL_CBOR, String.valueOf(e.getMessage()), e);
    }
    if (!(v instanceof CborTag(long tag, CborValue content))) {
      throw new ReceiptException(
          ReceiptException.Reason.WRONG_TAG, "a COSE_Sign1 must carry tag 18; it is untagged");
    }
    if (tag != TAG) {
      throw new ReceiptException(
          ReceiptException.Reason.WRONG_TAG, "a COSE_Sign1 must carry tag 18, not " + tag);
    }
    if (!(content instanceof CborArray(var items)) || items.size() != 4) {
      throw malformed("a COSE_Sign1 is an array of four items");
    }
    if (!(items.get(0) instanceof CborBytes p)) {
      throw malformed("the protected header must be a byte string");
    }
    if (!(items.get(1) instanceof CborMap u)) {
      throw malformed("the unprotected header must be a map");
    }
    if (!(items.get(2) instanceof CborBytes body)) {
      throw malformed("the payload must be a byte string (detached payloads are not used)");
    }
    if (!(items.get(3) instanceof CborBytes sig)) {
      throw malformed("the signature must be a byte string");
    }
    return new CoseSign1(p.bytes(), u, body.bytes(), sig.bytes());
  }

  /** Returns the tagged canonical encoding. */
  public byte[] encode() {
    return new CborTag(
            TAG,
            CborArray.of(
                CborBytes.of(protectedHeader),
                unprotectedHeader,
                CborBytes.of(payload),
                CborBytes.of(signature)))
        .encode();
  }

  /**
   * Verifies the signature over the {@code Sig_structure} with {@code key}.
   *
   * @throws ReceiptException with {@code BAD_SIGNATURE} if it does not verify
   */
  public void verify(VerificationKey key) throws ReceiptException {
    try {
      key.verify(sigStructure(protectedHeader, payload), signature);
    } catch (SignatureException e) {
      throw new ReceiptException(
          ReceiptException.Reason.BAD_SIGNATURE, String.valueOf(e.getMessage()), e);
    }
  }

  /** The RFC 9052 §4.4 {@code Sig_structure} for Sign1 with empty external AAD. */
  public static byte[] sigStructure(byte[] protectedHeader, byte[] payload) {
    return CborArray.of(
            new CborText(CONTEXT),
            CborBytes.of(protectedHeader),
            CborBytes.of(new byte[0]),
            CborBytes.of(payload))
        .encode();
  }

  /** Returns a copy of the serialized protected header. */
  public byte[] protectedHeader() {
    return protectedHeader.clone();
  }

  /** Returns the unprotected header. */
  public CborMap unprotectedHeader() {
    return unprotectedHeader;
  }

  /** Returns a copy of the payload. */
  public byte[] payload() {
    return payload.clone();
  }

  /** Returns a copy of the signature. */
  public byte[] signature() {
    return signature.clone();
  }

  private static ReceiptException malformed(String detail) {
    return new ReceiptException(ReceiptException.Reason.MALFORMED_ENVELOPE, detail);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof CoseSign1 c
        && Arrays.equals(protectedHeader, c.protectedHeader)
        && unprotectedHeader.equals(c.unprotectedHeader)
        && Arrays.equals(payload, c.payload)
        && Arrays.equals(signature, c.signature);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(payload) * 31 + Arrays.hashCode(signature);
  }
}
