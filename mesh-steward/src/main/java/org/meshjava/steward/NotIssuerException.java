package org.meshjava.steward;

import org.meshjava.core.DenialLabel;

/**
 * The caller presenting a grant is not its leaf's issuer, or its presentation is not signed for
 * this request (§2.1): the caller is not authenticated as the party that may spend the grant. An
 * HTTP binding answers 401. Its {@link #label()} is {@code not-issuer} or {@code bad-signature}.
 * Nothing was done or sealed.
 */
public final class NotIssuerException extends GateDenialException {
  private static final long serialVersionUID = 1L;

  /** Creates the exception. */
  public NotIssuerException(DenialLabel label, String detail, Throwable cause) {
    super(Reason.NOT_ISSUER, label, detail, cause);
  }
}
