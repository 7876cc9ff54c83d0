package org.meshjava.journal;

import java.util.Objects;
import org.meshjava.core.ContentId;

/**
 * A suspension of grants the journal records and no later {@code Resumed} lifts (§2.2): what a
 * replay or a snapshot carries forward, so that the steward keeps refusing every grant until an
 * operator lifts it.
 *
 * @param record the {@code Suspended} record
 * @param receiptSequence the sequence of the receipt the witness was shown
 * @param envelopeId that receipt's envelope id
 */
public record Suspension(long record, long receiptSequence, ContentId envelopeId) {
  /** Validates the record. */
  public Suspension {
    Objects.requireNonNull(envelopeId, "envelopeId");
  }

  @Override
  public String toString() {
    return "journal record "
        + record
        + ": shown receipt "
        + receiptSequence
        + " (envelope "
        + envelopeId
        + ") that the journal did not hold; restore the journal, then lift with"
        + " `mesh journal resume-grants`";
  }
}
