package org.meshjava.core.cbor;

import org.meshjava.core.ReasonedException;

/**
 * Thrown when bytes are not canonical mesh/1 CBOR. Carries the rule broken and the byte offset at
 * which the decoder noticed, so callers and tests can match on facts rather than on messages.
 */
public final class CborDecodeException extends ReasonedException {
  private static final long serialVersionUID = 1L;

  private final long offset;

  /** Creates the exception. */
  public CborDecodeException(CborRule rule, long offset, String detail) {
    super(rule, detail, rule + " at offset " + offset + ": " + detail);
    this.offset = offset;
  }

  /** Returns the rule the input broke: its reason. */
  @Override
  public CborRule reason() {
    return (CborRule) super.reason();
  }

  /** Returns the rule the input broke; the same as {@link #reason()}. */
  public CborRule rule() {
    return reason();
  }

  /** Returns the offset of the offending byte, counted from the start of the input. */
  public long offset() {
    return offset;
  }
}
