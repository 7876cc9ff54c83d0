package org.meshjava.receipt;

/**
 * How a debit broke the grant it was made on, as a receipt's {@code grant_breach} records it (§2,
 * §6.1). The debit is made anyway, since the work ran. The wire strings are the JCP denial labels
 * of the two ways a debit can break a grant (SPEC.md "Grant denial labels"); a receipt naming any
 * other text is inconsistent.
 */
public enum GrantBreach {
  /** The debit exceeded a {@code MaxCostUj} caveat. */
  CAVEAT_UNSATISFIED("caveat-unsatisfied"),
  /** The debit overspent a link's budget. */
  BUDGET_EXHAUSTED("budget-exhausted");

  private final String wire;

  GrantBreach(String wire) {
    this.wire = wire;
  }

  /** Returns the wire string, e.g. {@code caveat-unsatisfied}. */
  public String wire() {
    return wire;
  }

  /**
   * Returns the breach with this wire string.
   *
   * @throws IllegalArgumentException if no breach has it
   */
  public static GrantBreach fromWire(String wire) {
    for (GrantBreach b : values()) {
      if (b.wire.equals(wire)) {
        return b;
      }
    }
    throw new IllegalArgumentException(
        "grant_breach '"
            + wire
            + "' is not a debit's breach (caveat-unsatisfied, budget-exhausted)");
  }

  @Override
  public String toString() {
    return wire;
  }
}
