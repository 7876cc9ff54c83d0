package org.meshjava.journal;

import java.util.Objects;
import org.meshjava.core.ContentId;
import org.meshjava.receipt.tlog.Checkpoint;
import org.meshjava.receipt.tlog.LogException;
import org.meshjava.receipt.tlog.SignedNote;

/**
 * A suspension of grants the journal records and no later {@code Resumed} lifts (§2.2): what a
 * replay or a snapshot carries forward, so that the steward keeps refusing every grant until an
 * operator lifts it.
 *
 * @param record the {@code Suspended} record
 * @param evidence what the steward was shown
 */
public record Suspension(long record, Evidence evidence) {
  /** Validates the record. */
  public Suspension {
    Objects.requireNonNull(evidence, "evidence");
  }

  /** A suspension on a shown receipt: its sequence and its envelope id. */
  public Suspension(long record, long receiptSequence, ContentId envelopeId) {
    this(record, new Evidence.ShownReceipt(receiptSequence, envelopeId));
  }

  /**
   * What the steward was shown that its journal did not hold (SPEC.md §60.4): one of its receipts,
   * or one of its transparency log's checkpoints.
   */
  public sealed interface Evidence {
    /**
     * A receipt this steward sealed that the journal did not hold.
     *
     * @param sequence the receipt's chain sequence
     * @param envelopeId its envelope's content id
     */
    record ShownReceipt(long sequence, ContentId envelopeId) implements Evidence {
      /** Validates the evidence. */
      public ShownReceipt {
        Objects.requireNonNull(envelopeId, "envelopeId");
      }
    }

    /**
     * A checkpoint this steward signed that its log did not hold (SPEC.md §65).
     *
     * @param checkpoint the signed note as shown
     */
    record ShownCheckpoint(SignedNote checkpoint) implements Evidence {
      /** Validates the evidence. */
      public ShownCheckpoint {
        Objects.requireNonNull(checkpoint, "checkpoint");
      }
    }
  }

  @Override
  public String toString() {
    String shown =
        switch (evidence) {
          case Evidence.ShownReceipt r ->
              "shown receipt "
                  + r.sequence()
                  + " (envelope "
                  + r.envelopeId()
                  + ") that the journal did not hold";
          case Evidence.ShownCheckpoint c ->
              "shown a checkpoint of its log ("
                  + body(c.checkpoint())
                  + ") that the journal's receipts do not reproduce (restored from an older copy,"
                  + " or another journal under the same key)";
        };
    return "journal record "
        + record
        + ": "
        + shown
        + "; restore the journal, then lift with `mesh journal resume-grants`";
  }

  /** The checkpoint's size and root, for a message; the note was checked when it was recorded. */
  private static String body(SignedNote note) {
    try {
      Checkpoint c = Checkpoint.parse(note.text());
      return "size " + c.size() + ", root " + c.root().base64();
    } catch (LogException e) {
      return "not a checkpoint: " + e.getMessage();
    }
  }
}
