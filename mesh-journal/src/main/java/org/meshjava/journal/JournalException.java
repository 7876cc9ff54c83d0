package org.meshjava.journal;

import java.util.OptionalLong;
import org.jspecify.annotations.Nullable;
import org.meshjava.core.ReasonedException;

/**
 * Thrown when a journal cannot be opened, read or appended to. Carries a {@link Reason} and, for a
 * bad record, its sequence number.
 */
public final class JournalException extends ReasonedException {
  private static final long serialVersionUID = 1L;

  /** Why. Stable; match on it. */
  public enum Reason {
    /** Another steward, in this process or another, holds the journal (§2.2). */
    LOCKED,
    /** The platform or filesystem cannot provide an exclusive lock, so the journal is refused. */
    UNLOCKABLE,
    /**
     * A record is malformed, or the records do not form one chain; or, for a journal kept in a
     * database, its owner row holds an epoch no steward could have written (no record named).
     */
    CORRUPT,
    /**
     * Replaying the records through the gate failed: a decision the gate refuses, a debit with no
     * authorisation, a presentation spent twice, a receipt out of sequence, a granted receipt that
     * settles no debited authorisation or whose signed figure contradicts its debit, a revocation
     * or suspension whose evidence does not verify (§2.2, SPEC.md §60.3). The journal is not one
     * this steward produced, and it must not serve from it.
     */
    REPLAY_REFUSED,
    /**
     * A place asked for is not in this journal: beyond its end, or the journal's record there does
     * not carry the hash the place names (a snapshot of another history, §2.2).
     */
    POSITION_MISMATCH,
    /**
     * The latest snapshot was refused (its cause, a {@link SnapshotException}, says why): it is not
     * this steward's, does not verify, or does not match the journal (SPEC.md §60.8).
     */
    SNAPSHOT_REFUSED,
    /** The records asked for were archived into segments that are not present. */
    ARCHIVED,
    /** Reading or writing storage failed. */
    IO,
    /** An earlier write failed; the journal takes no more appends until it is reopened. */
    FAILED,
    /** The journal is closed. */
    CLOSED,
    /**
     * Another steward has taken this journal over since this one opened it (a journal kept in a
     * database, whose lock this steward's lost session gave up): this one writes nothing more
     * (§2.2).
     */
    FENCED,
    /**
     * The journal's records are not where this steward looks for them: for a journal kept in a
     * database, its owner row is in another schema than the one the session's tables are in, so
     * opening there would start it afresh with every grant's budget back; or its owner row says it
     * was written in another database or cluster, so its rows were copied where it is opened and
     * the original may still be served (SPEC.md section 60.7).
     */
    MISPLACED,
    /**
     * The journal's file has a second name (a hard link), so it is not archived: the archive
     * renames a new file over one name only and would leave the other on the old records (SPEC.md
     * section 60.8). Refused before anything is written; not a failure of the disk, and removing
     * the other names (or reaching the journal through a symbolic link instead) lets the archive go
     * on.
     */
    HARD_LINKED,
    /**
     * The journal file's name is too long for the files an archive names beside it (the longest
     * adds 26 bytes, and a file name may be 255 bytes long): refused when the journal is opened,
     * before anything is written. Not a failure of the disk; renaming the file lets it open.
     */
    NAME_TOO_LONG
  }

  private final long seq;

  /** Creates an exception not tied to one record. */
  public JournalException(Reason reason, String detail, @Nullable Throwable cause) {
    this(reason, -1, detail, cause);
  }

  /** Creates an exception about record {@code seq}. */
  public JournalException(Reason reason, long seq, String detail, @Nullable Throwable cause) {
    // Details not about one record name the journal themselves ("journal x is held ..."), so
    // only a record number is added; a fixed "journal: " prefix would say it twice.
    super(reason, detail, (seq >= 0 ? "journal record " + seq + ": " : "") + detail, cause);
    this.seq = seq;
  }

  /** Returns why. */
  @Override
  public Reason reason() {
    return (Reason) super.reason();
  }

  /** The sequence number of the offending record, when one is to blame. */
  public OptionalLong seq() {
    return seq >= 0 ? OptionalLong.of(seq) : OptionalLong.empty();
  }
}
