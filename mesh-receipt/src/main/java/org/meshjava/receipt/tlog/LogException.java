package org.meshjava.receipt.tlog;

/**
 * Thrown when a transparency-log proof, checkpoint or signed note is refused. Carries a {@link
 * Reason}; match on it, not on the message.
 */
public final class LogException extends Exception {
  private static final long serialVersionUID = 1L;

  /** Why a proof, checkpoint or note was refused. Stable; match on it. */
  public enum Reason {
    /** A tree size or leaf index outside the tree (or a from-size above the to-size). */
    OUT_OF_RANGE,
    /** An inclusion proof does not lead from the leaf to the root. */
    BAD_INCLUSION_PROOF,
    /** A consistency proof does not join the older root to the newer one. */
    BAD_CONSISTENCY_PROOF,
    /** The text is not a C2SP checkpoint (origin, decimal size, base64 root). */
    MALFORMED_CHECKPOINT,
    /** The text is not a C2SP signed note, or a signature line is malformed. */
    MALFORMED_NOTE,
    /** A verifier key is not of the form {@code name+hash+base64(0x01 || key)}. */
    MALFORMED_KEY,
    /** No signature by the expected key is on the note. */
    UNSIGNED,
    /** A signature line names a known key but its signature does not verify. */
    BAD_SIGNATURE,
    /** A checkpoint does not match the tree it is said to describe. */
    CHECKPOINT_MISMATCH,
    /** The steward keeps no transparency log: it was turned off. */
    NOT_KEPT
  }

  private final Reason reason;

  /**
   * Creates an exception with a reason and a human-readable detail. Public because the log's
   * keeping side and the steward refuse with it too ({@code CHECKPOINT_MISMATCH}, {@code
   * NOT_KEPT}).
   */
  public LogException(Reason reason, String detail) {
    super(reason + ": " + detail);
    this.reason = reason;
  }

  /** Returns why the input was refused. */
  public Reason reason() {
    return reason;
  }
}
