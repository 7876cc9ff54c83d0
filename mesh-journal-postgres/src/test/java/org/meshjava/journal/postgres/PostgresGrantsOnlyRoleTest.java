package org.meshjava.journal.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.meshjava.journal.JournalException;

/**
 * A steward's role granted the journal's tables a DBA made, and nothing on their schema (SPEC.md
 * 60.7, "Tables"), as PostgreSQL 15 leaves every role by default: it no longer gives {@code CREATE}
 * on {@code public} to all. {@code CREATE TABLE IF NOT EXISTS} asks for that privilege before it
 * looks for the table, so every opening and every snapshot save was refused "permission denied for
 * schema public" although the tables were there. Simulated on the suite's PostgreSQL 14 by revoking
 * it, as a DBA of 14 may.
 */
class PostgresGrantsOnlyRoleTest {
  @Test
  void aRoleWithTableGrantsOnly_andNoCreateOnTheSchema_opensWritesAndSavesSnapshots()
      throws Exception {
    StewardRoleJournal r = StewardRoleJournal.of(1);
    r.sql(
        "REVOKE CREATE ON SCHEMA public FROM PUBLIC",
        "GRANT DELETE ON mesh_journal_snapshot TO " + r.role());

    r.opensAppendsAndSaves();
  }

  /**
   * The same role with the tables in a schema of their own ({@code ?schema=mesh}): {@code public}
   * gives every role {@code USAGE}, another schema gives it to none, and without it nothing in the
   * schema can be reached, so the role needs {@code USAGE} on it (and still no {@code CREATE}), as
   * the README says; without it the opening is refused naming the grant.
   */
  @Test
  void aRoleWithTableGrantsInANamedSchema_needsUsageOnIt_andNoCreate() throws Exception {
    StewardRoleJournal r = StewardRoleJournal.of(1);
    r.sql(
        "CREATE SCHEMA mesh",
        "ALTER TABLE mesh_journal_owner SET SCHEMA mesh",
        "ALTER TABLE mesh_journal_record SET SCHEMA mesh",
        "ALTER TABLE mesh_journal_snapshot SET SCHEMA mesh",
        "GRANT DELETE ON mesh.mesh_journal_snapshot TO " + r.role());
    PostgresLocation at = r.asRole("?schema=mesh");
    assertThatThrownBy(() -> PostgresJournal.open(at, r.name()))
        .isInstanceOfSatisfying(
            JournalException.class,
            e -> assertThat(e.getMessage()).contains("has no USAGE privilege on it"));

    r.sql("GRANT USAGE ON SCHEMA mesh TO " + r.role());
    r.opensAppendsAndSaves(at);
  }
}
