package org.meshjava.steward;

import org.meshjava.core.DenialLabel;

/**
 * The JCP gate denied the serve with a stable {@link DenialLabel} (§2, §2.1): either the caller is
 * not authenticated as the party that may spend the grant ({@link NotIssuerException}, HTTP 401) or
 * the grant refuses the serve ({@link GrantDeniedException}, 403). Match on the subtype and {@link
 * #label()}. Nothing was done or sealed.
 */
public abstract sealed class GateDenialException extends ServeException
    permits GrantDeniedException, NotIssuerException {
  private static final long serialVersionUID = 1L;

  private final DenialLabel label;

  GateDenialException(Reason reason, DenialLabel label, String detail, Throwable cause) {
    super(reason, label, detail, cause);
    this.label = label;
  }

  /** The stable JCP denial label. */
  public DenialLabel label() {
    return label;
  }
}
