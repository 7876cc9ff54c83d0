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
   * Signs {@code payload} as {@link #sign} does and returns the tagged encoding at once: {@code
   * sign(...).encode()}, byte for byte, without the copies of the parts that an immutable {@code
   * CoseSign1} keeps (a serve seals one envelope, so this runs on every serve). The arrays are
   * read, not kept.
   */
  public static byte[] signEncoded(
      byte[] protectedHeader, CborMap unprotected, byte[] payload, SigningKey key) {
    byte[] sig = key.sign(sigStructure(protectedHeader, payload));
    return encoded(protectedHeader, Objects.requireNonNull(unprotected), payload, sig);
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
    return encoded(protectedHeader, unprotectedHeader, payload, signature);
  }

  /**
   * The canonical encoding of {@code 18([protected, unprotected, payload, signature])}, written
   * into an array of exactly its size: the value model's encoding copies each byte string into a
   * {@link CborBytes} and the whole through a growing buffer, several copies of the payload per
   * envelope. {@code CoseSign1EncodingTest} holds it to the value model's bytes.
   */
  private static byte[] encoded(byte[] p, CborMap unprotected, byte[] payload, byte[] sig) {
    return join(
        TAGGED_ARRAY_OF_FOUR,
        CanonicalCbor.byteStringHead(p.length),
        p,
        CanonicalCbor.encode(unprotected),
        CanonicalCbor.byteStringHead(payload.length),
        payload,
        CanonicalCbor.byteStringHead(sig.length),
        sig);
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
    // Written into an array of exactly its size, as encoded() is; held to the value model's
    // encoding by CoseSign1EncodingTest.
    return join(
        SIG_STRUCTURE_START,
        CanonicalCbor.byteStringHead(protectedHeader.length),
        protectedHeader,
        EMPTY_BYTES,
        CanonicalCbor.byteStringHead(payload.length),
        payload);
  }

  /** Tag 18 (major 6, 18 in the head) and an array of four items (major 4, 4 in the head). */
  private static final byte[] TAGGED_ARRAY_OF_FOUR = {(byte) 0xd2, (byte) 0x84};

  /** An array of four items, then the text "Signature1": how every Sig_structure begins. */
  private static final byte[] SIG_STRUCTURE_START = sigStructureStart();

  /** An empty byte string: the external AAD. */
  private static final byte[] EMPTY_BYTES = {0x40};

  private static byte[] sigStructureStart() {
    byte[] context = CanonicalCbor.encode(new CborText(CONTEXT));
    return join(new byte[] {(byte) 0x84}, context);
  }

  /** The parts one after another, in one array of exactly their length. */
  private static byte[] join(byte[]... parts) {
    int n = 0;
    for (byte[] part : parts) {
      n += part.length;
    }
    byte[] out = new byte[n];
    int at = 0;
    for (byte[] part : parts) {
      System.arraycopy(part, 0, out, at, part.length);
      at += part.length;
    }
    return out;
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
