package org.meshjava.steward;

/**
 * The answer to {@link Steward#witness}: whether the journal holds a receipt the steward sealed;
 * and to {@link Steward#witnessCheckpoint}: whether its transparency log holds the tree a
 * checkpoint it signed describes.
 */
public enum WitnessVerdict {
  /**
   * The journal records this receipt's sequence with this envelope; or the log reproduces this
   * checkpoint (its root at the checkpoint's size is the signed one).
   */
  HELD,
  /**
   * The journal does not hold this receipt: records were cut after it was handed out; or the log
   * does not reproduce this checkpoint: the journal was restored from an older copy, or another
   * journal runs under the key. From now on the steward refuses every grant until an operator
   * restores the journal (§2.2).
   */
  NOT_HELD
}
