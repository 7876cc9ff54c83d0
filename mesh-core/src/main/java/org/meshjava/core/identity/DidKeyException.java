package org.meshjava.core.identity;

import org.meshjava.core.ReasonedException;

/**
 * Thrown when a string is not a well-formed Ed25519 {@code did:key}. Callers and tests match on
 * {@link #reason()}, never on the message.
 */
public final class DidKeyException extends ReasonedException {
  private static final long serialVersionUID = 1L;

  /** What is wrong with the text. */
  public enum Reason {
    /** It does not start with {@code did:key:z}. */
    PREFIX,
    /** It is longer than any Ed25519 {@code did:key} can be. */
    TOO_LONG,
    /** A character after the prefix is outside the base58btc alphabet. */
    NOT_BASE58,
    /** The decoded bytes do not start with the Ed25519 multicodec {@code 0xed 0x01}. */
    NOT_ED25519,
    /** The key after the multicodec is not 32 bytes. */
    KEY_LENGTH,
    /** The 32 bytes are not an Ed25519 public key. */
    INVALID_KEY,
    /** The text decodes to a valid key but is not that key's unique encoding. */
    NOT_CANONICAL
  }

  /** Creates the exception with a reason and a detail for people. */
  public DidKeyException(Reason reason, String detail) {
    super(reason, detail, detail);
  }

  /** Returns what is wrong with the text. */
  @Override
  public Reason reason() {
    return (Reason) super.reason();
  }
}
