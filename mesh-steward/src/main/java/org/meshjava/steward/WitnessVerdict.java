package org.meshjava.steward;

/**
 * The answer to {@link Steward#witness}: whether the journal holds a receipt the steward sealed.
 */
public enum WitnessVerdict {
  /** The journal records this receipt's sequence with this envelope. */
  HELD,
  /**
   * The journal does not hold this receipt: records were cut after it was handed out. From now on
   * the steward refuses every grant until an operator restores the journal (§2.2).
   */
  NOT_HELD
}
