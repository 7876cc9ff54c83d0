package org.meshjava.journal.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.meshjava.journal.JournalException;

/**
 * Row-level security switched on over the journal's records (SPEC.md 60.7, "Faults"): a policy that
 * hides rows from the steward's role would have a part of the journal read as the whole.
 */
class PostgresRowSecurityTest {
  @Test
  void rowSecurityHidingTheTailOfTheRecords_isRefusedIo_byOpeningAndByTheTools() throws Exception {
    StewardRoleJournal journal = StewardRoleJournal.of(2);
    // A DBA's policy that lets the role see only the first records (every role but the table's
    // owner and superusers is held to it).
    journal.sql(
        "ALTER TABLE mesh_journal_record ENABLE ROW LEVEL SECURITY",
        "CREATE POLICY early ON mesh_journal_record USING (seq < 2)");
    PostgresLocation asRole = journal.asRole();
    assertThatThrownBy(() -> PostgresJournal.open(asRole, journal.name()))
        .isInstanceOfSatisfying(
            JournalException.class,
            e -> {
              assertThat(e.reason()).isEqualTo(JournalException.Reason.IO);
              assertThat(e.getMessage())
                  .contains("row-level security applies to role " + journal.role());
            });
    // An export would otherwise write the first two records as the whole journal.
    assertThatThrownBy(() -> PostgresJournal.readLines(asRole, journal.name()))
        .isInstanceOfSatisfying(
            JournalException.class, e -> assertThat(e.getMessage()).contains("row-level security"));
  }
}
