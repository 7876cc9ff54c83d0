package org.meshjava.core.crypto;

/** Thrown when an Ed25519 signature does not verify, or a key or signature is malformed. */
public final class SignatureException extends Exception {
  private static final long serialVersionUID = 1L;

  /** Creates the exception with a reason. */
  public SignatureException(String reason) {
    super(reason);
  }
}
