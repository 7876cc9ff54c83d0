package org.meshjava.jcp;

import java.util.Objects;

/**
 * One chain link as the spend ledger sees it: its id and its budget.
 *
 * @param link the link's grant id
 * @param budgetUj its budget in µJ, non-negative
 */
public record LinkBudget(GrantId link, long budgetUj) {
  /** Validates the pair. */
  public LinkBudget {
    Objects.requireNonNull(link, "link");
    if (budgetUj < 0) {
      throw new IllegalArgumentException("budget must be non-negative: " + budgetUj);
    }
  }
}
