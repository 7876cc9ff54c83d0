package org.meshjava.receipt.tlog.internal;

import org.meshjava.receipt.tlog.Checkpoint;
import org.meshjava.receipt.tlog.LogException;
import org.meshjava.receipt.tlog.TreeHash;

/**
 * Whether a checkpoint, already opened against the log's key, is one this log could have signed
 * (SPEC 65): not of the empty tree, not smaller than the latest, not past the receipts, and the
 * receipts' root at its size. A start ({@link TransparencyLog#publish}) and {@code mesh journal
 * verify} ({@code LogReplay.Checker}) both ask it, so that the two cannot take different journals.
 */
public final class CheckpointRules {
  private CheckpointRules() {}

  /**
   * Checks {@code checkpoint} against {@code tree}, the log's receipts so far, and {@code
   * latestSize}, the size of the latest checkpoint taken before it (0 for none).
   *
   * @throws LogException {@code CHECKPOINT_MISMATCH} naming the rule it breaks
   */
  public static void check(Checkpoint checkpoint, MerkleTree tree, long latestSize)
      throws LogException {
    check(checkpoint, tree.size(), latestSize, tree::root);
  }

  /** The root a log's receipts give at a size, which the caller keeps as it likes. */
  @FunctionalInterface
  public interface RootAt {
    /**
     * The root at {@code size} leaves, for a size from the latest checkpoint's to the leaves held.
     *
     * @throws LogException {@code OUT_OF_RANGE} if it cannot give that size's root
     */
    TreeHash root(long size) throws LogException;
  }

  /**
   * As {@link #check(Checkpoint, MerkleTree, long)}, for a log of {@code held} receipts whose roots
   * {@code roots} gives (a {@link RootWindow} based at {@code latestSize}, without the tree).
   *
   * @throws LogException {@code CHECKPOINT_MISMATCH} naming the rule it breaks
   */
  public static void check(Checkpoint checkpoint, long held, long latestSize, RootAt roots)
      throws LogException {
    if (checkpoint.size() == 0) {
      // This log never signs the empty tree, so a note of it is none of its checkpoints.
      throw mismatch("checkpoint of the empty tree, which a steward never signs");
    }
    if (checkpoint.size() < latestSize) {
      throw mismatch(
          "checkpoint of size " + checkpoint.size() + " after one of size " + latestSize);
    }
    if (checkpoint.size() > held) {
      throw mismatch(
          "checkpoint of size "
              + checkpoint.size()
              + " but the journal holds "
              + held
              + " receipts");
    }
    TreeHash root = roots.root(checkpoint.size());
    if (!root.equals(checkpoint.root())) {
      throw mismatch(
          "signed root at size "
              + checkpoint.size()
              + " is "
              + checkpoint.root()
              + " but the journal's receipts give "
              + root);
    }
  }

  private static LogException mismatch(String detail) {
    return new LogException(LogException.Reason.CHECKPOINT_MISMATCH, detail);
  }
}
