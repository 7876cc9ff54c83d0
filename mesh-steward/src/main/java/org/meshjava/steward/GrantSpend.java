package org.meshjava.steward;

import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.meshjava.core.identity.DidKey;
import org.meshjava.jcp.Gate;
import org.meshjava.jcp.GrantChain;
import org.meshjava.jcp.GrantId;
import org.meshjava.jcp.LedgerState;
import org.meshjava.jcp.LinkSpend;

/**
 * What grants have spent at a steward, read-only ({@link Steward#spend()}): per link, what was
 * debited and what is reserved now; per chain, what is left. Only a serve moves spend, and every
 * move is journalled first (§2.2); this view can neither debit nor release, so nothing outside the
 * serve can change spend behind the journal's back.
 *
 * <p>Thread-safe; each call reads the live ledger, so two calls may see different moments.
 */
public final class GrantSpend {
  private final Gate gate;

  GrantSpend(Gate gate) {
    this.gate = Objects.requireNonNull(gate, "gate");
  }

  /** The steward whose spend this is: the subject a grant's leaf must name (§2.1). */
  public DidKey holder() {
    return gate.holder();
  }

  /**
   * What {@code chain} has left here: the least, over its links, of budget less debits and
   * reservations, never below 0; what a presentation's joule ceiling is decided against (§2). Does
   * not verify the chain.
   */
  public long remainingUj(GrantChain chain) {
    return gate.remainingUj(chain);
  }

  /**
   * What {@code link} has debited and reserved here (zeros when never seen, or forgotten after its
   * expiry).
   */
  public LinkSpend spend(GrantId link) {
    return gate.ledger().spend(link);
  }

  /** The time {@code grant} is revoked from here, if it is (SPEC.md 30 §11). */
  public Optional<Instant> revokedFrom(GrantId grant) {
    return gate.revocations().revokedFrom(grant);
  }

  /** Everything the ledger holds now, as values (what a snapshot stores); for tests. */
  LedgerState ledgerState() {
    return gate.ledger().state();
  }

  /** Every revocation, as values; for tests. */
  Map<GrantId, Instant> revocations() {
    return gate.revocations().all();
  }
}
