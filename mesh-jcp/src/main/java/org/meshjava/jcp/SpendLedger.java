package org.meshjava.jcp;

import java.time.Instant;
import java.util.List;

/**
 * A steward's grant spend (JCP §4.11 as mesh §2.2 cites it): per link, what was debited and what is
 * reserved; and which (leaf, nonce) pairs were spent. The {@link Gate} is its only writer. This is
 * the state a durable journal must re-establish; {@link #inMemory()} keeps it in memory only, so a
 * restart gives every budget back.
 *
 * <p><b>Contract.</b> Implementations must be thread-safe, and {@link #reserve} must be atomic: the
 * spent check, the budget check, marking the pair spent and reserving on every link happen as one
 * step, so two concurrent serves cannot both see the same remaining budget. With that, the sum of
 * debits and reservations on a link never exceeds its budget, provided each serve's debit is at
 * most the ceiling it reserved (a debit above it is still recorded, because the work ran).
 *
 * <p><b>Replay.</b> Given the same calls in the same order, an implementation must reach the same
 * state, so a journal can rebuild it by replaying decisions and debits through the gate.
 */
public interface SpendLedger {

  /**
   * Atomically: refuses a spent (leaf, nonce) pair; refuses when the least remaining over {@code
   * links} (budget − debited − reserved) is below {@code amountUj}; otherwise marks the pair spent
   * and reserves {@code amountUj} on every link.
   *
   * @throws GrantRefusedException {@code presentation-spent} or {@code budget-exhausted} (at the
   *     link with the least left, the first of them on a tie); nothing is changed then, so the pair
   *     is not spent by a refusal
   */
  default Reservation reserve(
      GrantId leaf, PresentationNonce nonce, List<LinkBudget> links, long amountUj)
      throws GrantRefusedException {
    return reserve(leaf, nonce, links, amountUj, Instant.MIN);
  }

  /**
   * As {@link #reserve(GrantId, PresentationNonce, List, long)}, for a decision at {@code
   * decidedAt}, and with bounded memory. The ledger's horizon is the latest time at which it
   * admitted a reservation; a refusal leaves it where it was, because a refusal is journalled
   * nowhere and a horizon it moved would be one that no replay rebuilds. A presentation can be
   * accepted only before the earliest expiry of its links, so once the horizon reaches that instant
   * its (leaf, nonce) pair is forgotten, and so is the spend of every link whose own expiry the
   * horizon reached (once nothing is reserved on it). To keep that safe when a clock steps back, a
   * presentation whose earliest link expiry is at or before the horizon is refused {@code expired}
   * here, whatever {@code decidedAt} says.
   *
   * @throws GrantRefusedException {@code expired}, {@code presentation-spent} or {@code
   *     budget-exhausted}; nothing is changed then, the horizon included
   */
  Reservation reserve(
      GrantId leaf,
      PresentationNonce nonce,
      List<LinkBudget> links,
      long amountUj,
      Instant decidedAt)
      throws GrantRefusedException;

  /**
   * Atomically replaces the reservation with a debit of {@code debitUj} on every link. The debit is
   * applied even if it takes a link over its budget.
   *
   * @return each link's spend after the debit, root first
   * @throws IllegalStateException if the reservation is not open in this ledger (settled twice,
   *     released, or never made here)
   */
  List<LinkSpend> settle(Reservation reservation, long debitUj);

  /**
   * Returns the reservation to every link without a debit, for a serve that failed before any work.
   * The (leaf, nonce) pair stays spent: a presentation is single use.
   *
   * @throws IllegalStateException if the reservation is not open in this ledger
   */
  void release(Reservation reservation);

  /**
   * Returns what {@code link} has debited and reserved here (zeros when never seen, or forgotten
   * after its expiry).
   */
  LinkSpend spend(GrantId link);

  /**
   * Whether the (leaf, nonce) pair has been spent here and is still remembered (it is forgotten
   * once no presentation carrying it could be accepted).
   */
  boolean isSpent(GrantId leaf, PresentationNonce nonce);

  /**
   * How many (leaf, nonce) pairs and link accounts this ledger holds now: what its memory grows
   * with. Expired ones are not counted once forgotten.
   */
  long liveEntries();

  /**
   * Returns everything this ledger holds now, for a journal snapshot (§2.2). Taken atomically with
   * respect to the other calls.
   *
   * @throws UnsupportedOperationException if this ledger cannot be captured (the default)
   */
  default LedgerState state() {
    throw new UnsupportedOperationException(getClass().getName() + " cannot be captured");
  }

  /**
   * Returns a new in-memory ledger holding {@code state}: it decides every later call as the ledger
   * the state was taken from would have.
   */
  static SpendLedger restore(LedgerState state) {
    return new InMemorySpendLedger(state);
  }

  /** Returns a new, empty, thread-safe ledger held in memory. */
  static SpendLedger inMemory() {
    return new InMemorySpendLedger();
  }
}
