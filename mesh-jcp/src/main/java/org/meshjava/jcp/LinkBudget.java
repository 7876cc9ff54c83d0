package org.meshjava.jcp;

import java.time.Instant;
import java.util.Objects;
import org.meshjava.core.Unsigned;

/**
 * One chain link as the spend ledger sees it: its id, its budget and its expiry.
 *
 * @param link the link's grant id
 * @param budgetUj its budget in µJ, non-negative
 * @param expiry the instant from which the link admits nothing; its spend may be forgotten then
 */
public record LinkBudget(GrantId link, long budgetUj, Instant expiry) {
  /** Validates the link. */
  public LinkBudget {
    Objects.requireNonNull(link, "link");
    Objects.requireNonNull(expiry, "expiry");
    Unsigned.u64("budget", budgetUj);
  }

  /** A link that never expires as far as the ledger knows, so its spend is never forgotten. */
  public LinkBudget(GrantId link, long budgetUj) {
    this(link, budgetUj, Instant.MAX);
  }
}
