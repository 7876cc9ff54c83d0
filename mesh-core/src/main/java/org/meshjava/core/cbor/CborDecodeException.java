package org.meshjava.core.cbor;

/**
 * Thrown when bytes are not canonical mesh/1 CBOR. Carries the rule broken and the byte offset at
 * which the decoder noticed, so callers and tests can match on facts rather than on messages.
 */
public final class CborDecodeException extends Exception {
  private static final long serialVersionUID = 1L;

  private final CborRule rule;
  private final long offset;

  /** Creates the exception. */
  public CborDecodeException(CborRule rule, long offset, String detail) {
    super(rule + " at offset " + offset + ": " + detail);
    this.rule = rule;
    this.offset = offset;
  }

  /** Returns the rule the input broke. */
  public CborRule rule() {
    return rule;
  }

  /** Returns the offset of the offending byte, counted from the start of the input. */
  public long offset() {
    return offset;
  }
}
