package org.meshjava.journal;

import org.jspecify.annotations.Nullable;
import org.meshjava.core.ReasonedException;

/**
 * Thrown when a journal snapshot is refused (§2.2, SPEC.md §60.8). A refused snapshot is never
 * trusted, not even in part: the steward does not start from it.
 */
public final class SnapshotException extends ReasonedException {
  private static final long serialVersionUID = 1L;

  /** Why. Stable; match on it. */
  public enum Reason {
    /** The bytes are not a snapshot's exact canonical encoding, or a value in it is invalid. */
    MALFORMED,
    /** The snapshot names a format version this implementation does not know. */
    UNSUPPORTED_VERSION,
    /** The snapshot is another steward's: it names another identity. */
    OTHER_STEWARD,
    /** The signature does not verify under the steward's key: the snapshot was altered. */
    BAD_SIGNATURE,
    /** The snapshot covers more records than the journal holds. */
    AHEAD_OF_JOURNAL,
    /** The journal's record at the snapshot's position does not hash as the snapshot says. */
    NOT_IN_JOURNAL,
    /** Reading or writing the snapshot store failed. */
    IO,
    /**
     * Another steward holds the snapshot folder ({@link FileSnapshotStore#claim()}): two stewards
     * saving into one folder would delete each other's snapshots.
     */
    IN_USE,
    /**
     * The snapshot is larger than this implementation can save or read back ({@link
     * Snapshot#MAX_BYTES}, or a store's own limit): it was not written, or is not read. Not a sign
     * of tampering: the steward serves on without it (SPEC.md §60.8, "Size").
     */
    TOO_LARGE
  }

  /** Creates the exception. */
  public SnapshotException(Reason reason, String detail, @Nullable Throwable cause) {
    super(
        reason,
        detail,
        "snapshot refused (" + reason.name().toLowerCase(java.util.Locale.ROOT) + "): " + detail,
        cause);
  }

  /** Returns why. */
  @Override
  public Reason reason() {
    return (Reason) super.reason();
  }

  /**
   * {@code TOO_LARGE}: {@code what} (a snapshot being saved, or a file) is {@code bytes} long where
   * at most {@code max} fit; says what a steward does about it and what the operator can do.
   */
  public static SnapshotException tooLarge(String what, long bytes, long max) {
    return new SnapshotException(
        Reason.TOO_LARGE,
        what
            + " is "
            + bytes
            + " bytes, more than the "
            + max
            + " a snapshot can be (it carries every receipt id and the transparency tree's levels,"
            + " about 96 bytes a receipt); the steward keeps the last snapshot that fits and"
            + " serves on, and a restart replays the journal from that one (or from record 0 if"
            + " none can be read), so keep the journal's records after it, segments included"
            + " (SPEC.md §60.8, \"Size\")",
        null);
  }
}
