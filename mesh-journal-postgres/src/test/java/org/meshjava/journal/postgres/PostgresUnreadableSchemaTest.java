package org.meshjava.journal.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.meshjava.journal.postgres.PostgresSchemaLockTest.at;
import static org.meshjava.journal.postgres.PostgresSchemaLockTest.count;
import static org.meshjava.journal.postgres.PostgresSchemaLockTest.sql;

import java.util.UUID;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.meshjava.journal.JournalException;
import org.meshjava.testpg.PostgresTestServer;

/**
 * Schemas the journal's role may not use (SPEC.md 60.7, "Schema"): one the URL names is refused by
 * name before anything is tried there, and a copy of the journal in one the role cannot read is
 * neither read nor written, nor looked for: its rows cannot be seen, so whether it is this journal
 * is not known.
 */
class PostgresUnreadableSchemaTest {
  @BeforeAll
  static void startServer() {
    PostgresSchemaLockTest.startServer();
  }

  /**
   * A database whose schema {@code hidden} holds journal {@code name}, and a role kept out of it.
   */
  record Hidden(String name, String role, String database) {}

  static Hidden hiddenJournal() throws Exception {
    String name = PostgresJournalTest.newName();
    String role = "rh" + UUID.randomUUID().toString().replace("-", "");
    String database = PostgresSchemaLockTest.server.newDatabase();
    sql(database, "CREATE SCHEMA hidden");
    try (PostgresJournal j =
        PostgresJournal.open(at(database, PostgresTestServer.USER, "?schema=hidden"), name)) {
      j.append(PostgresJournalTest.authorised(0));
    }
    sql(
        database,
        "CREATE ROLE " + role + " LOGIN",
        "GRANT USAGE, CREATE ON SCHEMA public TO " + role,
        // SELECT on the tables, but no USAGE on their schema: still nothing of them can be read.
        "GRANT ALL ON ALL TABLES IN SCHEMA hidden TO " + role);
    return new Hidden(name, role, database);
  }

  @Test
  void aSchemaTheUrlNamesThatTheRoleMayNotUse_isRefusedByName_andNothingIsCreated()
      throws Exception {
    Hidden h = hiddenJournal();
    String name = h.name();
    String role = h.role();
    String database = h.database();
    assertThatThrownBy(() -> PostgresJournal.open(at(database, role, "?schema=hidden"), name))
        .isInstanceOfSatisfying(
            JournalException.class,
            e -> {
              assertThat(e.reason()).isEqualTo(JournalException.Reason.IO);
              assertThat(e.getMessage())
                  .contains("role " + role + " may not use schema hidden")
                  .contains("no USAGE privilege");
            });
    assertThat(count(database, "hidden.mesh_journal_record")).isEqualTo(2);
    assertThat(count(database, "hidden.mesh_journal_owner")).isEqualTo(1);
  }

  @Test
  void aCopyInASchemaTheRoleCannotRead_isNotSeen_andTheJournalStartsInItsOwnSchema()
      throws Exception {
    Hidden h = hiddenJournal();
    String name = h.name();
    String role = h.role();
    String database = h.database();
    // The decision SPEC 60.7 documents: what cannot be read cannot be told from another tenant's
    // journal, so it refuses nothing; and what cannot be read cannot be written either.
    try (PostgresJournal j = PostgresJournal.open(at(database, role, ""), name)) {
      assertThat(j.position().count()).isZero();
      assertThat(j.epoch()).isEqualTo(1);
      j.append(PostgresJournalTest.authorised(1));
    }
    assertThat(count(database, "public.mesh_journal_record")).isEqualTo(2);
    assertThat(count(database, "hidden.mesh_journal_record")).isEqualTo(2);
    try (PostgresJournal hidden =
        PostgresJournal.open(at(database, PostgresTestServer.USER, "?schema=hidden"), name)) {
      assertThat(hidden.epoch()).as("untouched by the other role's opening").isEqualTo(2);
      assertThat(hidden.position().count()).isEqualTo(2);
    }
  }
}
