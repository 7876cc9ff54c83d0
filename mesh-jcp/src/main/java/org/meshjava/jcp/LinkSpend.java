package org.meshjava.jcp;

import java.util.Objects;
import org.meshjava.core.Unsigned;

/**
 * What one link has spent at this steward: debited by settled serves, and reserved by serves
 * authorised but not yet settled. Both count against the link's budget.
 *
 * <p>The figures are u64 limited to 2^63 − 1 (SPEC 10.1.4), as a budget is (SPEC 30 §2). Debits
 * past that stop there and set {@code debitPastRange}: the true sum is then larger than every
 * budget a grant can carry, so the link is overspent whatever its budget, 2^63 − 1 included.
 * Without the flag, a link with that budget could not tell a spend of exactly its budget from any
 * larger one.
 *
 * @param link the link's grant id
 * @param debitedUj µJ debited, non-negative; 2^63 − 1 when {@code debitPastRange}
 * @param reservedUj µJ reserved, non-negative
 * @param debitPastRange whether the debits summed past 2^63 − 1 µJ and {@code debitedUj} stopped
 *     there
 */
public record LinkSpend(GrantId link, long debitedUj, long reservedUj, boolean debitPastRange) {
  /** Validates the figures. */
  public LinkSpend {
    Objects.requireNonNull(link, "link");
    if (debitedUj < 0 || reservedUj < 0) {
      throw new IllegalArgumentException("spend figures are non-negative");
    }
    if (debitPastRange && debitedUj != Long.MAX_VALUE) {
      throw new IllegalArgumentException(
          "debits past 2^63 - 1 µJ stop at 2^63 - 1, not at " + debitedUj);
    }
  }

  /** A spend whose debits are within range: every figure exact. */
  public LinkSpend(GrantId link, long debitedUj, long reservedUj) {
    this(link, debitedUj, reservedUj, false);
  }

  /** Returns debited plus reserved, saturating at {@link Long#MAX_VALUE}. */
  public long committedUj() {
    return Unsigned.saturatingAdd(debitedUj, reservedUj);
  }

  /**
   * Returns what a link with {@code budgetUj} has left; negative when a debit overspent it ({@link
   * Long#MIN_VALUE} when the shortfall is beyond a {@code long}, as it always is once the debits
   * went past range).
   */
  public long remainingUj(long budgetUj) {
    if (debitPastRange) {
      return Long.MIN_VALUE;
    }
    // Both within 0 … 2^63 − 1, so this cannot wrap; the reservation is taken off with a floor.
    long left = budgetUj - debitedUj;
    return left < Long.MIN_VALUE + reservedUj ? Long.MIN_VALUE : left - reservedUj;
  }

  /**
   * Returns this spend with {@code debitUj} more debited. A sum past 2^63 − 1 stops there and sets
   * {@link #debitPastRange}, which then stays set.
   *
   * @throws IllegalArgumentException if {@code debitUj} is negative
   */
  public LinkSpend plusDebit(long debitUj) {
    Unsigned.u64("debit", debitUj);
    boolean past = debitPastRange || debitUj > Long.MAX_VALUE - debitedUj;
    return new LinkSpend(link, Unsigned.saturatingAdd(debitedUj, debitUj), reservedUj, past);
  }
}
