package org.meshjava.jcp;

import java.util.Objects;

/**
 * What one link has spent at this steward: debited by settled serves, and reserved by serves
 * authorised but not yet settled. Both count against the link's budget.
 *
 * @param link the link's grant id
 * @param debitedUj µJ debited, non-negative
 * @param reservedUj µJ reserved, non-negative
 */
public record LinkSpend(GrantId link, long debitedUj, long reservedUj) {
  /** Validates the figures. */
  public LinkSpend {
    Objects.requireNonNull(link, "link");
    if (debitedUj < 0 || reservedUj < 0) {
      throw new IllegalArgumentException("spend figures are non-negative");
    }
  }

  /** Returns debited plus reserved, saturating at {@link Long#MAX_VALUE}. */
  public long committedUj() {
    long sum = debitedUj + reservedUj;
    return sum < 0 ? Long.MAX_VALUE : sum;
  }

  /** Returns what a link with {@code budgetUj} has left; negative when a debit overspent it. */
  public long remainingUj(long budgetUj) {
    return budgetUj - committedUj();
  }
}
