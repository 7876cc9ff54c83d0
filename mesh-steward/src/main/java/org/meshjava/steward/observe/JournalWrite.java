package org.meshjava.steward.observe;

import java.util.Objects;

/**
 * One timed step of a journal write the steward made (§2.2).
 *
 * <p>Immutable.
 *
 * @param step which step was timed
 * @param nanos how long it took, in nanoseconds, read from {@link System#nanoTime()}
 */
public record JournalWrite(Step step, long nanos) {
  /** The two steps of a journal write ({@link org.meshjava.journal.Journal#enqueue}). */
  public enum Step {
    /**
     * Fixing the record's place in the journal's chain and queueing its bytes ({@code enqueue}).
     */
    APPEND,
    /**
     * Waiting for the record to be durable ({@code await}): for a file journal the write and the
     * sync, shared by the appends that wait together.
     */
    SYNC
  }

  /** Validates the record. */
  public JournalWrite {
    Objects.requireNonNull(step, "step");
    if (nanos < 0) {
      throw new IllegalArgumentException("a duration is non-negative: " + nanos);
    }
  }
}
