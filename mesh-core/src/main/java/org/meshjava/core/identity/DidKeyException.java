package org.meshjava.core.identity;

/** Thrown when a string is not a well-formed Ed25519 {@code did:key}. */
public final class DidKeyException extends Exception {
  private static final long serialVersionUID = 1L;

  /** Creates the exception with a reason. */
  public DidKeyException(String reason) {
    super(reason);
  }
}
