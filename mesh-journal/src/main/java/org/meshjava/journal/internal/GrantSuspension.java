package org.meshjava.journal.internal;

import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.meshjava.journal.Journal;
import org.meshjava.journal.JournalEntry;
import org.meshjava.journal.JournalException;
import org.meshjava.journal.JournalRecord;
import org.meshjava.journal.Suspension;

/**
 * The operator's side of a suspension of grants (§2.2): whether one is in force in a journal, and
 * lifting it with a journalled {@link JournalEntry.Resumed} record. A suspension is lifted only
 * this way, never by a restart. Stateless.
 */
public final class GrantSuspension {
  private GrantSuspension() {}

  /**
   * The suspension in force at the end of {@code records}: the last {@code Suspended} record not
   * followed by a {@code Resumed} one. Reads the records only; replay checks the evidence.
   */
  public static Optional<Suspension> inForce(List<JournalRecord> records) {
    Optional<Suspension> current = Optional.empty();
    for (JournalRecord r : records) {
      if (r.entry() instanceof JournalEntry.Suspended s) {
        current = Optional.of(new Suspension(r.seq(), s.sequence(), s.envelope().id()));
      } else if (r.entry() instanceof JournalEntry.SuspendedByCheckpoint c) {
        current =
            Optional.of(
                new Suspension(r.seq(), new Suspension.Evidence.ShownCheckpoint(c.checkpoint())));
      } else if (r.entry() instanceof JournalEntry.Resumed) {
        current = Optional.empty();
      }
    }
    return current;
  }

  /**
   * Lifts the suspension in force in {@code journal} (as it was opened: its recovered records),
   * appending a {@code Resumed} record with the operator's {@code note}. Meant for a journal no
   * steward is running on: {@code mesh journal resume-grants} opens the file, which takes its lock.
   *
   * @return the record written, or empty when no suspension was in force (nothing is written)
   * @throws JournalException if the record cannot be written
   */
  public static Optional<JournalRecord> lift(Journal journal, String note) throws JournalException {
    Objects.requireNonNull(journal, "journal");
    JournalEntry.Resumed resumed = new JournalEntry.Resumed(note);
    if (inForce(journal.recovered()).isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(journal.append(resumed));
  }
}
