package org.meshjava.journal.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.Test;
import org.meshjava.testpg.PostgresTestServer;

/**
 * A temporary table of one of the journal's names in the journal's own session (SPEC.md 60.7,
 * "Schema"): left there by whatever used the session before the journal (a pool's earlier client, a
 * session set-up), it is in the session's temporary schema, which the server searched first for a
 * table the path named without a schema. The journal took it for its own: it opened at epoch 1 with
 * none of its records, wrote its records there, and they went with the session.
 */
class PostgresTemporaryTableTest {
  /** Makes the journal's session, then a temporary table of each of the journal's names in it. */
  private static Connection withTemporaryTables(Connection c) throws SQLException {
    try (Statement s = c.createStatement()) {
      s.execute(
          "CREATE TEMPORARY TABLE mesh_journal_owner (journal text PRIMARY KEY,"
              + " epoch bigint NOT NULL, cluster_id bigint, database_oid bigint)");
      s.execute(
          "CREATE TEMPORARY TABLE mesh_journal_record (journal text NOT NULL, seq bigint NOT NULL,"
              + " line bytea NOT NULL, PRIMARY KEY (journal, seq))");
      s.execute(
          "CREATE TEMPORARY TABLE mesh_journal_snapshot (journal text NOT NULL,"
              + " count bigint NOT NULL, snapshot bytea NOT NULL, PRIMARY KEY (journal, count))");
    }
    return c;
  }

  private static PostgresJournal openWithTemporaryTables(PostgresLocation at, String name)
      throws Exception {
    return PostgresJournal.open(
        at, name, () -> {}, PostgresTemporaryTableTest::withTemporaryTables);
  }

  @Test
  void aTemporaryTableOfTheJournalsName_isNotTakenForTheJournals() throws Exception {
    PostgresTestServer server = PostgresTestServer.shared();
    PostgresLocation at = PostgresLocation.parse(server.url(server.newDatabase()));
    String name = PostgresJournalTest.newName();
    try (PostgresJournal j = PostgresJournal.open(at, name)) {
      j.append(PostgresJournalTest.authorised(0));
    }

    try (PostgresJournal j = openWithTemporaryTables(at, name)) {
      assertThat(j.epoch()).as("the owner row of the journal's table raised").isEqualTo(2);
      assertThat(j.position().count()).as("the journal's records read").isEqualTo(2);
      j.append(PostgresJournalTest.authorised(1));
    }
    assertThat(PostgresJournal.readLines(at, name)).hasSize(3);
  }

  @Test
  void aPathPuttingPgTempFirst_keepsTheJournalInTheFirstSchemaAfterIt() throws Exception {
    // With no schema= in the URL the journal took the session's current schema, which a path
    // naming pg_temp first makes the session's temporary one: the tables were made there, as
    // temporary tables, and every record went with the session.
    PostgresTestServer server = PostgresTestServer.shared();
    String database = server.newDatabase();
    try (Connection c = server.connect(database);
        Statement s = c.createStatement()) {
      s.execute("ALTER DATABASE \"" + database + "\" SET search_path = pg_temp, public");
    }
    PostgresLocation at = PostgresLocation.parse(server.url(database));
    String name = PostgresJournalTest.newName();
    try (PostgresJournal j = PostgresJournal.open(at, name)) {
      j.append(PostgresJournalTest.authorised(0));
    }
    assertThat(
            PostgresJournal.readLines(
                PostgresLocation.parse(server.url(database) + "?schema=public"), name))
        .as("the records outlive the session, in public")
        .hasSize(2);
    try (PostgresJournal j = PostgresJournal.open(at, name)) {
      assertThat(j.epoch()).isEqualTo(2);
      assertThat(j.position().count()).isEqualTo(2);
    }
  }

  @Test
  void inADatabaseWithoutTheTables_theJournalsAreMade_notTheTemporaryOnesUsed() throws Exception {
    PostgresTestServer server = PostgresTestServer.shared();
    PostgresLocation at = PostgresLocation.parse(server.url(server.newDatabase()));
    String name = PostgresJournalTest.newName();

    try (PostgresJournal j = openWithTemporaryTables(at, name)) {
      j.append(PostgresJournalTest.authorised(0));
    }
    assertThat(PostgresJournal.readLines(at, name))
        .as("the records outlive the session")
        .hasSize(2);
    try (PostgresJournal j = PostgresJournal.open(at, name)) {
      assertThat(j.epoch()).isEqualTo(2);
    }
  }
}
