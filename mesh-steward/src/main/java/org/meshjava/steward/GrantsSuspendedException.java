package org.meshjava.steward;

/**
 * The steward no longer honours grants: it was shown a receipt it sealed that its journal does not
 * hold, or a checkpoint it signed that its log does not hold, so records were cut or rolled back
 * after that left and the spend it replayed is less than it signed for (§2.2, SPEC.md §60.4); or
 * the snapshot file it restarted from, whose spent presentations it reads in place, was cut short
 * under it, so that spend can no longer be read (until a restart, which this process does not
 * journal). Every grant is refused until an operator restores the journal (or the snapshot);
 * ungranted serves go on. An HTTP binding answers 503.
 */
public final class GrantsSuspendedException extends ServeException {
  private static final long serialVersionUID = 1L;

  /** Creates the exception. */
  public GrantsSuspendedException(String detail) {
    super(Reason.GRANTS_SUSPENDED, detail, java.util.List.of(), null);
  }

  /** Creates the exception for a suspension that {@code cause} set off. */
  GrantsSuspendedException(String detail, Throwable cause) {
    super(Reason.GRANTS_SUSPENDED, detail, java.util.List.of(), cause);
  }
}
