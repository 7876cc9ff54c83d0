package org.meshjava.core;

/**
 * Why a grant was refused, as a stable machine-readable label. The {@link #wire()} string is what
 * goes on the wire: in an HTTP error body, and in a receipt's {@code grant_breach} (§6.1) when a
 * debit breaches the grant. The strings never change; new labels may be added.
 *
 * <p>It lives here, not with the gate in mesh-jcp, because two modules that do not depend on each
 * other speak it: the gate refuses and debits with it, and the receipt records a debit's breach
 * with it (only {@link #CAVEAT_UNSATISFIED} or {@link #BUDGET_EXHAUSTED}, which the receipt
 * checks).
 */
public enum DenialLabel {
  /** Bytes that do not decode as a grant, chain or presentation. */
  MALFORMED("malformed"),
  /** A grant's issuer signature, or the presentation's caller signature, does not verify. */
  BAD_SIGNATURE("bad-signature"),
  /** A link's issuer is not the previous link's subject, or its parent id is not that link's id. */
  BROKEN_CHAIN("broken-chain"),
  /** A link grants more than its parent in some dimension. */
  NOT_ATTENUATED("not-attenuated"),
  /** The decision time is at or after a link's expiry. */
  EXPIRED("expired"),
  /** The decision time is before a link's not-before. */
  NOT_YET_VALID("not-yet-valid"),
  /** A link was revoked at or before the decision time. */
  REVOKED("revoked"),
  /** A link does not permit the action {@code infer}. */
  ACTION_NOT_PERMITTED("action-not-permitted"),
  /** A link does not permit the request's content id. */
  RESOURCE_NOT_PERMITTED("resource-not-permitted"),
  /**
   * A caveat does not hold: a model outside {@code ModelIn}, or a debit above {@code MaxCostUj}.
   */
  CAVEAT_UNSATISFIED("caveat-unsatisfied"),
  /** A link carries a caveat this implementation does not know; refused, fail closed. */
  UNKNOWN_CAVEAT("unknown-caveat"),
  /** What the chain has left is below the request's joule ceiling (or a debit overspent a link). */
  BUDGET_EXHAUSTED("budget-exhausted"),
  /** The leaf's subject is not this gate's holder: the grant is held by another steward. */
  WRONG_HOLDER("wrong-holder"),
  /** The presentation's caller is not the leaf's issuer. */
  NOT_ISSUER("not-issuer"),
  /** This (leaf, nonce) pair has already been spent at this gate. */
  PRESENTATION_SPENT("presentation-spent");

  private final String wire;

  DenialLabel(String wire) {
    this.wire = wire;
  }

  /** Returns the stable wire string, e.g. {@code budget-exhausted}. */
  public String wire() {
    return wire;
  }

  /**
   * Returns the label with this wire string.
   *
   * @throws IllegalArgumentException if no label has it
   */
  public static DenialLabel fromWire(String wire) {
    for (DenialLabel l : values()) {
      if (l.wire.equals(wire)) {
        return l;
      }
    }
    throw new IllegalArgumentException("unknown denial label '" + wire + "'");
  }

  @Override
  public String toString() {
    return wire;
  }
}
