package org.meshjava.steward;

/**
 * The steward no longer honours grants: it was shown a receipt it sealed that its journal does not
 * hold, or a checkpoint it signed that its log does not hold, so records were cut or rolled back
 * after that left and the spend it replayed is less than it signed for (§2.2, SPEC.md §60.4). Every
 * grant is refused until an operator restores the journal; ungranted serves go on. An HTTP binding
 * answers 503.
 */
public final class GrantsSuspendedException extends ServeException {
  private static final long serialVersionUID = 1L;

  /** Creates the exception. */
  public GrantsSuspendedException(String detail) {
    super(Reason.GRANTS_SUSPENDED, detail, java.util.List.of(), null);
  }
}
