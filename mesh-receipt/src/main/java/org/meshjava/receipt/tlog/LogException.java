package org.meshjava.receipt.tlog;

import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.meshjava.core.ReasonedException;

/**
 * Thrown when a transparency-log proof, checkpoint or signed note is refused. Carries a {@link
 * Reason}; match on it, not on the message.
 */
public final class LogException extends ReasonedException {
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
    NOT_KEPT,
    /**
     * The log's tree can no longer be read where it is kept: a read of the snapshot file its levels
     * are read from in place faulted, the file having been cut short under the running steward
     * (SPEC.md §60.8, "Reading in place"). The log answers no proof, checkpoint or witness verdict
     * until a restart; receipts are still sealed and journalled, and the restart puts them in the
     * tree.
     */
    UNREADABLE
  }

  /**
   * What a {@link Reason#CHECKPOINT_MISMATCH} says about the log that refused the checkpoint: a
   * caller that must answer the two differently (the steward's {@code POST /v1/mesh/checkpoint},
   * SPEC.md §70) matches on it, never on the message.
   */
  public enum Mismatch {
    /**
     * The checkpoint is not the one expected (not the latest, another size or root, another log's):
     * no evidence against the log, and nothing changes.
     */
    OTHER_CHECKPOINT,
    /**
     * The log's own key signed the checkpoint, but the log does not hold it: evidence that its
     * journal was restored from an older copy or forked (SPEC.md §60.4).
     */
    NOT_HELD
  }

  /** Set exactly for {@link Reason#CHECKPOINT_MISMATCH}. */
  private final @Nullable Mismatch mismatch;

  /**
   * Creates an exception with a reason and a human-readable detail. Public because the log's
   * keeping side and the steward refuse with it too ({@code CHECKPOINT_MISMATCH}, {@code
   * NOT_KEPT}). A {@code CHECKPOINT_MISMATCH} made here is {@link Mismatch#OTHER_CHECKPOINT}.
   */
  public LogException(Reason reason, String detail) {
    this(reason, reason == Reason.CHECKPOINT_MISMATCH ? Mismatch.OTHER_CHECKPOINT : null, detail);
  }

  private LogException(Reason reason, @Nullable Mismatch mismatch, String detail) {
    super(reason, detail, reason + ": " + detail);
    this.mismatch = mismatch;
  }

  /**
   * A {@code CHECKPOINT_MISMATCH} for a checkpoint the log's own key signed that the log does not
   * hold ({@link Mismatch#NOT_HELD}).
   */
  public static LogException notHeld(String detail) {
    return new LogException(Reason.CHECKPOINT_MISMATCH, Mismatch.NOT_HELD, detail);
  }

  /** Returns why the input was refused. */
  @Override
  public Reason reason() {
    return (Reason) super.reason();
  }

  /** For a {@code CHECKPOINT_MISMATCH}, which one; empty for every other reason. */
  public Optional<Mismatch> mismatch() {
    return Optional.ofNullable(mismatch);
  }
}
