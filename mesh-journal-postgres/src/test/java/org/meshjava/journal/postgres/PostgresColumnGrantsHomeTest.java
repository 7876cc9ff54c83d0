package org.meshjava.journal.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.meshjava.journal.postgres.PostgresSchemaLockTest.at;
import static org.meshjava.journal.postgres.PostgresSchemaLockTest.count;
import static org.meshjava.journal.postgres.PostgresSchemaLockTest.sql;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.meshjava.journal.JournalException;

/**
 * A journal kept in another schema than the session's, whose tables the steward's role was granted
 * column by column (SPEC.md 60.7, "Schema"): a grant the privilege check takes as enough to open
 * and write there, so the role reads that schema's owner row as well as one granted the table. The
 * look for the journal's owner row in the other schemas asked for the table-wide SELECT alone and
 * passed the schema over, so an opening without {@code schema=} started the journal afresh in the
 * session's schema, every grant's budget back, where a role granted the table was refused {@code
 * MISPLACED}.
 */
class PostgresColumnGrantsHomeTest {
  @BeforeAll
  static void startServer() {
    PostgresSchemaLockTest.startServer();
  }

  @Test
  void aJournalInASchemaTheRoleReadsByColumnGrants_isRefusedMisplaced_notStartedAfresh()
      throws Exception {
    PostgresUnreadableSchemaTest.Hidden h = PostgresUnreadableSchemaTest.hiddenJournal();
    String name = h.name();
    String role = h.role();
    String database = h.database();
    sql(
        database,
        "GRANT USAGE ON SCHEMA hidden TO " + role,
        "REVOKE ALL ON ALL TABLES IN SCHEMA hidden FROM " + role,
        // Exactly what the journal's privilege check asks of a steward, and no table-wide grant.
        "GRANT SELECT (journal, epoch, cluster_id, database_oid),"
            + " INSERT (journal, epoch, cluster_id, database_oid),"
            + " UPDATE (epoch, cluster_id, database_oid) ON hidden.mesh_journal_owner TO "
            + role,
        "GRANT SELECT (journal, seq, line), INSERT (journal, seq, line)"
            + " ON hidden.mesh_journal_record TO "
            + role);
    // The role can open the journal where it is.
    try (PostgresJournal j = PostgresJournal.open(at(database, role, "?schema=hidden"), name)) {
      assertThat(j.position().count()).isEqualTo(2);
    }

    assertThatThrownBy(() -> PostgresJournal.open(at(database, role, ""), name))
        .isInstanceOfSatisfying(
            JournalException.class,
            e -> {
              assertThat(e.reason()).isEqualTo(JournalException.Reason.MISPLACED);
              assertThat(e.getMessage()).contains("?schema=hidden");
            });
    assertThat(count(database, "hidden.mesh_journal_owner")).isEqualTo(1);
    assertThat(
            PostgresSchemaLockTest.count(
                database,
                "pg_catalog.pg_class WHERE relname = 'mesh_journal_owner'"
                    + " AND relnamespace = 'public'::regnamespace"))
        .as("nothing made in the session's schema")
        .isZero();
  }
}
