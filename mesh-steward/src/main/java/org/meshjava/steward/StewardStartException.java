package org.meshjava.steward;

import java.util.Optional;
import java.util.OptionalLong;
import org.meshjava.journal.JournalException;
import org.meshjava.journal.SnapshotException;
import org.meshjava.receipt.tlog.LogException;

/**
 * The steward refuses to start because its journal cannot be replayed (§2.2): records that do not
 * form one chain, a decision the gate refuses, a debit with no authorisation, a presentation spent
 * twice or a receipt out of sequence. {@link #record()} names the offending record. Or because the
 * latest journal snapshot is refused ({@link #snapshotRefusal()}). Or, with {@link
 * JournalException.Reason#LOCKED}, because another steward in this process was built over the same
 * journal and is still open.
 *
 * <p>{@code Steward.Builder.build()} throws it; the journal's own API reports the same causes as
 * the checked {@link JournalException} (opening a file journal reads its first and last lines, and
 * refuses a fault there before a builder sees it). What builds a steward from its configuration
 * (the Spring starter) throws this type for a journal refused at either point, so that its caller
 * meets one type carrying the journal's exception and {@link #reason()}.
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

  /**
   * Whether the journal, or its latest snapshot, is another identity's: it records a checkpoint
   * this steward's key did not sign, or its snapshot names another steward ({@link
   * org.meshjava.journal.SnapshotException.Reason#OTHER_STEWARD}). Most often the steward was given
   * another key than the one that wrote the journal, or none (a new identity each process); what
   * starts a steward from its own configuration names the setting that gives the key. A snapshot
   * replaced by another steward's reads the same under the right key, so a key given is named as a
   * possible cause, not as the certain one.
   */
  public boolean anotherIdentity() {
    return snapshotRefusal().equals(Optional.of(SnapshotException.Reason.OTHER_STEWARD))
        || (reason() == JournalException.Reason.REPLAY_REFUSED
            && journalException.getCause() instanceof LogException e
            && e.reason() == LogException.Reason.UNSIGNED);
  }

  /** The underlying journal exception. */
  public Optional<JournalException> journalException() {
    return Optional.ofNullable(journalException);
  }
}
