package org.meshjava.steward;

import org.meshjava.core.DenialLabel;

/**
 * The grant refuses the serve (§2, §7 item 1): expired, revoked, not attenuated, over budget, held
 * by another steward, already spent, and so on; {@link #label()} says which. An HTTP binding
 * answers 403 with the label. Nothing was done or sealed.
 */
public final class GrantDeniedException extends GateDenialException {
  private static final long serialVersionUID = 1L;

  /** Creates the exception. */
  public GrantDeniedException(DenialLabel label, String detail, Throwable cause) {
    super(Reason.GRANT_REFUSED, label, detail, cause);
  }
}
