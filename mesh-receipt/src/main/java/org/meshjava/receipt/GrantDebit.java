package org.meshjava.receipt;

import java.util.Objects;
import java.util.Optional;
import org.meshjava.core.ContentId;

/**
 * The grant a served request was debited on (§2): the leaf grant's id and, when the debit broke the
 * grant, how. A breach without a grant cannot be expressed.
 *
 * @param grantId the leaf grant debited ({@code grant_id})
 * @param breach how the debit broke the grant ({@code grant_breach}), if it did
 */
public record GrantDebit(ContentId grantId, Optional<GrantBreach> breach) {
  /** Checks both parts are present. */
  public GrantDebit {
    Objects.requireNonNull(grantId, "grantId");
    Objects.requireNonNull(breach, "breach");
  }
}
