package org.meshjava.steward;

import java.util.Optional;
import java.util.OptionalLong;
import org.meshjava.journal.JournalException;

/**
 * The steward refuses to start because its journal cannot be replayed (§2.2): records that do not
 * form one chain, a decision the gate refuses, a debit with no authorisation, a presentation spent
 * twice or a receipt out of sequence. {@link #record()} names the offending record. Or because the
 * latest journal snapshot is refused ({@link #snapshotRefusal()}). Or, with {@link
 * JournalException.Reason#LOCKED}, because another steward in this process was built over the same
 * journal and is still open.
 */
public final class StewardStartException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final transient JournalException journalException;

  /** Creates the exception. */
  public StewardStartException(String message, JournalException cause) {
    super(message, cause);
    this.journalException = cause;
  }

  /** The journal's reason. */
  public JournalException.Reason reason() {
    return journalException.reason();
  }

  /** The sequence of the record that could not be replayed, if one is to blame. */
  public OptionalLong record() {
    return journalException.seq();
  }

  /**
   * Why the latest snapshot was refused, when that stopped the start ({@link
   * JournalException.Reason#SNAPSHOT_REFUSED}).
   */
  public Optional<org.meshjava.journal.SnapshotException.Reason> snapshotRefusal() {
    return journalException.getCause() instanceof org.meshjava.journal.SnapshotException e
        ? Optional.of(e.reason())
        : Optional.empty();
  }

  /** The underlying journal exception. */
  public Optional<JournalException> journalException() {
    return Optional.ofNullable(journalException);
  }
}
