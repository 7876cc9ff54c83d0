package org.meshjava.jcp;

import java.util.List;
import java.util.Objects;
import org.meshjava.core.Unsigned;

/**
 * A ledger's hold on the joule ceiling of one authorised serve, against every link of its chain,
 * until the serve is settled by a debit or released. Immutable.
 *
 * @param serial the ledger's number for this reservation, unique within the ledger
 * @param leaf the leaf grant spent
 * @param nonce the presentation nonce spent with it
 * @param links every link of the chain with its budget, root first
 * @param amountUj the µJ held on each link
 */
public record Reservation(
    long serial, GrantId leaf, PresentationNonce nonce, List<LinkBudget> links, long amountUj) {
  /** Validates and copies. */
  public Reservation {
    Objects.requireNonNull(leaf, "leaf");
    Objects.requireNonNull(nonce, "nonce");
    links = List.copyOf(links);
    if (links.isEmpty()) {
      throw new IllegalArgumentException("a reservation holds at least one link");
    }
    Unsigned.u64("amount", amountUj);
  }
}
