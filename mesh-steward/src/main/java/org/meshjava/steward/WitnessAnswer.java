package org.meshjava.steward;

import java.util.Objects;
import java.util.Optional;
import org.meshjava.receipt.tlog.Checkpoint;
import org.meshjava.receipt.tlog.InclusionProof;
import org.meshjava.receipt.tlog.LogException;
import org.meshjava.receipt.tlog.SignedNote;

/**
 * The witness's full answer (§2.2, SPEC.md §60.4 and §65): the verdict, and for a held receipt the
 * transparency log's evidence for it, so a caller need not take the verdict on trust.
 *
 * <p>Immutable.
 *
 * @param verdict whether the journal holds the shown receipt
 * @param sequence the shown receipt's sequence
 * @param proof for a held receipt, its inclusion proof against the latest signed checkpoint, with
 *     that checkpoint; empty when the receipt is not held or the log is turned off
 */
public record WitnessAnswer(WitnessVerdict verdict, long sequence, Optional<Proof> proof) {
  /** Validates: a proof only for a held receipt. */
  public WitnessAnswer {
    Objects.requireNonNull(verdict, "verdict");
    Objects.requireNonNull(proof, "proof");
    if (sequence < 0) {
      throw new IllegalArgumentException("a sequence is not negative, got " + sequence);
    }
    if (proof.isPresent() && verdict != WitnessVerdict.HELD) {
      throw new IllegalArgumentException("only a held receipt has an inclusion proof");
    }
  }

  /**
   * A receipt's inclusion proof and the signed checkpoint it leads to.
   *
   * @param inclusion the RFC 9162 audit path of the receipt's leaf
   * @param checkpoint the steward's signed checkpoint (with any cosignatures) of the proof's size
   */
  public record Proof(InclusionProof inclusion, SignedNote checkpoint) {
    /** Validates that the proof is for the checkpoint's tree size. */
    public Proof {
      Objects.requireNonNull(inclusion, "inclusion");
      Objects.requireNonNull(checkpoint, "checkpoint");
      long size;
      try {
        size = Checkpoint.parse(checkpoint.text()).size();
      } catch (LogException e) {
        throw new IllegalArgumentException("not a checkpoint: " + e.getMessage(), e);
      }
      if (size != inclusion.treeSize()) {
        throw new IllegalArgumentException(
            "a proof for size " + inclusion.treeSize() + " with a checkpoint of size " + size);
      }
    }
  }
}
