package org.meshjava.journal.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import org.junit.jupiter.api.Test;
import org.meshjava.journal.JournalException;

/**
 * A steward role a DBA granted less on the journal's tables than a steward uses (SPEC.md 60.7):
 * without {@code INSERT} on {@code mesh_journal_record} the opening went through (it raises the
 * epoch and reads), and the first record failed the journal "permission denied for table
 * mesh_journal_record", so every steward start served until its first granted request and then
 * stopped recording. The opening is now refused before anything is raised, naming the privilege and
 * the grant.
 */
class PostgresJournalPrivilegeTest {
  @Test
  void aRoleWithoutInsertOnTheRecords_isRefusedAtOpening_namingTheGrant_whichThenLetsItWrite()
      throws Exception {
    StewardRoleJournal r = StewardRoleJournal.of(1, "Rec Steward");
    r.sql("REVOKE INSERT ON mesh_journal_record FROM \"Rec Steward\"");

    Throwable t = catchThrowable(() -> PostgresJournal.open(r.asRole(), r.name()).close());
    assertThat(t).isInstanceOf(JournalException.class);
    JournalException e = (JournalException) t;
    assertThat(e.reason()).as(e.getMessage()).isEqualTo(JournalException.Reason.IO);
    assertThat(e.getMessage())
        .contains("role \"Rec Steward\" lacks INSERT on table mesh_journal_record")
        .contains("GRANT INSERT ON public.mesh_journal_record TO \"Rec Steward\"");

    r.sql(e.getMessage().substring(e.getMessage().indexOf("GRANT INSERT")));
    try (PostgresJournal j = PostgresJournal.open(r.asRole(), r.name())) {
      assertThat(j.epoch()).as("the refused opening raised nothing").isEqualTo(2);
      long before = j.position().count();
      j.append(PostgresJournalTest.authorised(1));
      assertThat(j.position().count()).isEqualTo(before + 1);
    }
  }
}
