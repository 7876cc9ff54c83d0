package org.meshjava.journal.postgres;

import org.junit.jupiter.api.Test;

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
}
