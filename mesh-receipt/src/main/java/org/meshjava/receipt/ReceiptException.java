package org.meshjava.receipt;

import java.util.OptionalLong;
import org.jspecify.annotations.Nullable;
import org.meshjava.core.ReasonedException;

/**
 * Thrown when bytes are not a valid mesh/1 receipt, envelope or chain. Carries a {@link Reason}
 * and, for chains, the index of the first bad envelope.
 */
public final class ReceiptException extends ReasonedException {
  private static final long serialVersionUID = 1L;

  /** Why a receipt, envelope or chain was refused. Stable; match on it. */
  public enum Reason {
    /** The bytes are not canonical CBOR (see the cause for the rule and offset). */
    NOT_CANONICAL_CBOR,
    /** The envelope lacks the COSE_Sign1 tag 18, or carries another tag. */
    WRONG_TAG,
    /** The envelope is not a four-element array of the right types. */
    MALFORMED_ENVELOPE,
    /** The protected header does not name algorithm -8 (EdDSA). */
    UNSUPPORTED_ALGORITHM,
    /** The protected header holds something besides {@code alg} and {@code kid}. */
    UNEXPECTED_HEADER,
    /** The protected header has no {@code kid}, or it is not a valid did:key. */
    BAD_KID,
    /** The unprotected header is not empty. */
    UNPROTECTED_NOT_EMPTY,
    /** The Ed25519 signature does not verify against the kid's key. */
    BAD_SIGNATURE,
    /**
     * The payload is not a well-formed mesh/1 signed core (a field missing, mistyped or unknown).
     */
    MALFORMED_RECEIPT,
    /** The payload breaks a coupling rule (§3.2.1, §3.3) or a derived figure does not match. */
    INCONSISTENT_RECEIPT,
    /** The receipt's {@code steward} differs from the envelope's {@code kid}. */
    STEWARD_MISMATCH,
    /** A chain link does not follow from the previous envelope. */
    BROKEN_CHAIN,
    /** A disclosure was checked against a receipt that commits to no output (§6.4). */
    NO_COMMITMENT,
    /** A disclosure does not open the receipt's output commitment (§6.4). */
    NOT_OPENED
  }

  private final long index;

  /** Creates an exception about a single envelope or receipt. */
  public ReceiptException(Reason reason, String detail) {
    this(reason, -1, detail, null);
  }

  /** Creates an exception with a cause. */
  public ReceiptException(Reason reason, String detail, @Nullable Throwable cause) {
    this(reason, -1, detail, cause);
  }

  /** Creates an exception about the envelope at {@code index} of a chain. */
  public ReceiptException(Reason reason, long index, String detail, @Nullable Throwable cause) {
    super(
        reason,
        detail,
        (index >= 0 ? "envelope " + index + ": " : "") + reason + ": " + detail,
        cause);
    this.index = index;
  }

  /** Returns why. */
  @Override
  public Reason reason() {
    return (Reason) super.reason();
  }

  /** Returns the index of the offending envelope in a chain, if this is about a chain. */
  public OptionalLong index() {
    return index >= 0 ? OptionalLong.of(index) : OptionalLong.empty();
  }
}
