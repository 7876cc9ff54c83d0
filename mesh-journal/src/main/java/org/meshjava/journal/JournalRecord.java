package org.meshjava.journal;

import java.util.Objects;
import java.util.Optional;
import org.meshjava.core.ContentId;

/**
 * One record of the journal's chain (§2.2): its sequence from 0, the BLAKE3 of the previous
 * record's encoding (absent for the first), and its entry.
 *
 * <p>Immutable.
 *
 * @param seq the record's position, from 0
 * @param prev BLAKE3 of the previous record's encoded line; absent exactly at seq 0
 * @param entry what the record says
 */
public record JournalRecord(long seq, Optional<ContentId> prev, JournalEntry entry) {

  /** Validates the record. */
  public JournalRecord {
    Objects.requireNonNull(prev, "prev");
    Objects.requireNonNull(entry, "entry");
    if (seq < 0) {
      throw new IllegalArgumentException("seq must be non-negative: " + seq);
    }
    if ((seq == 0) != prev.isEmpty()) {
      throw new IllegalArgumentException("prev is absent exactly at seq 0");
    }
  }
}
