package org.meshjava.jcp;

import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * Everything a {@link SpendLedger} holds at one moment, as plain values: what a journal snapshot
 * stores so that a restart need not replay the decisions that built it (§2.2). A ledger restored
 * from a state ({@link SpendLedger#restore}) decides every later call exactly as the ledger it was
 * taken from. Immutable.
 *
 * @param horizon the latest decision time at which the ledger admitted a reservation ({@link
 *     Instant#MIN} if none)
 * @param nextSerial the serial the next reservation takes
 * @param accounts every link account still held, in link-id order
 * @param spent every (leaf, nonce) pair still remembered, with the instant it is forgotten; a
 *     {@link PackedSpent} is kept as it is (immutable), any other list is copied
 * @param open every reservation not yet settled or released, in serial order
 */
public record LedgerState(
    Instant horizon,
    long nextSerial,
    List<Account> accounts,
    List<Spent> spent,
    List<Reservation> open) {

  /** Validates and copies. */
  public LedgerState {
    Objects.requireNonNull(horizon, "horizon");
    if (nextSerial < 0) {
      throw new IllegalArgumentException("nextSerial is non-negative: " + nextSerial);
    }
    accounts = List.copyOf(accounts);
    // Packed pairs stay packed: copying them into records is what restoring them compactly avoids.
    spent = spent instanceof PackedSpent ? spent : List.copyOf(spent);
    open = List.copyOf(open);
    for (Reservation r : open) {
      if (r.serial() >= nextSerial) {
        throw new IllegalArgumentException(
            "open reservation " + r.serial() + " is not below nextSerial " + nextSerial);
      }
    }
  }

  /** The state of a ledger that has seen nothing. */
  public static LedgerState empty() {
    return new LedgerState(Instant.MIN, 0, List.of(), List.of(), List.of());
  }

  /**
   * One link's account.
   *
   * @param link the link
   * @param debitedUj µJ debited
   * @param reservedUj µJ reserved by open reservations
   * @param expiry the latest expiry the link was presented with ({@link Instant#MIN} if never)
   * @param debitPastRange whether the debits summed past 2^63 − 1 µJ, {@code debitedUj} stopping
   *     there ({@link LinkSpend#debitPastRange})
   */
  public record Account(
      GrantId link, long debitedUj, long reservedUj, Instant expiry, boolean debitPastRange) {
    /** Validates the account. */
    public Account {
      Objects.requireNonNull(expiry, "expiry");
      // The figures' rules are a link spend's.
      new LinkSpend(link, debitedUj, reservedUj, debitPastRange);
    }

    /** An account whose debits are within range. */
    public Account(GrantId link, long debitedUj, long reservedUj, Instant expiry) {
      this(link, debitedUj, reservedUj, expiry, false);
    }
  }

  /**
   * A spent presentation still remembered.
   *
   * @param leaf the leaf grant
   * @param nonce the presentation nonce
   * @param until the instant the pair is forgotten: the earliest expiry of its chain ({@link
   *     Instant#MAX} for a pair kept for good)
   */
  public record Spent(GrantId leaf, PresentationNonce nonce, Instant until) {
    /** Validates the pair. */
    public Spent {
      Objects.requireNonNull(leaf, "leaf");
      Objects.requireNonNull(nonce, "nonce");
      Objects.requireNonNull(until, "until");
    }
  }
}
