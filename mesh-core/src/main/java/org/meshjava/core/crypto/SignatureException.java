package org.meshjava.core.crypto;

import org.meshjava.core.ReasonedException;

/**
 * Thrown by {@link VerificationKey#of} and {@link VerificationKey#verify} when an Ed25519 signature
 * does not verify, or a key or signature is malformed. Callers and tests match on {@link
 * #reason()}, never on the message.
 */
public final class SignatureException extends ReasonedException {
  private static final long serialVersionUID = 1L;

  /** Why a key or signature was refused. */
  public enum Reason {
    /** An encoded public key that is not 32 bytes. */
    KEY_LENGTH,
    /** 32 bytes that do not encode a point of the curve. */
    INVALID_KEY,
    /** A signature that is not 64 bytes. */
    SIGNATURE_LENGTH,
    /** A well-formed signature that does not verify for this key and message. */
    DOES_NOT_VERIFY
  }

  /**
   * Creates the exception with a reason and a detail for people. Package-private: only {@link
   * VerificationKey} refuses keys and signatures, so a caller only ever catches this exception.
   */
  SignatureException(Reason reason, String detail) {
    super(reason, detail, detail);
  }

  /** Returns why the key or signature was refused. */
  @Override
  public Reason reason() {
    return (Reason) super.reason();
  }
}
