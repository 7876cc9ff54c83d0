package org.meshjava.journal.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.meshjava.testpg.PostgresTestServer;

/**
 * A {@code RESET ALL} on the journal's own session (a trigger's, a pooler's {@code DISCARD ALL}
 * between transactions) put every setting the opening gave the session back to the database's: the
 * journal never reconnects, so its later batches ran without its lock and statement limits and
 * under the database's {@code synchronous_commit = off}, acknowledged before the server's disk had
 * them (SPEC.md 60.7, "Faults"). Each batch sets them again.
 */
class PostgresSessionResetTest {
  @Test
  void aResetAllOnTheJournalsSession_isUndoneByItsNextBatch() throws Exception {
    PostgresTestServer server = PostgresTestServer.shared();
    String database =
        databaseSetting(
            server,
            "synchronous_commit = off",
            "lock_timeout = '150ms'",
            "statement_timeout = '170ms'",
            "client_min_messages = error");
    try (PostgresJournal j =
        PostgresJournal.open(
            PostgresLocation.parse(server.url(database) + "?lease_ms=60000"),
            PostgresJournalTest.newName())) {
      j.append(PostgresJournalTest.authorised(0));
      sql(
          server,
          database,
          "CREATE TABLE seen (n serial, settings text)",
          // What each batch's insert runs under, then the reset, as a trigger may do it.
          "CREATE FUNCTION reset_all() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN"
              + " INSERT INTO seen (settings) SELECT pg_catalog.concat_ws(' ',"
              + " pg_catalog.current_setting('synchronous_commit'),"
              + " pg_catalog.current_setting('lock_timeout'),"
              + " pg_catalog.current_setting('statement_timeout'),"
              + " pg_catalog.current_setting('client_min_messages'),"
              + " pg_catalog.current_setting('search_path'));"
              + " RESET ALL; RETURN NEW; END $$",
          "CREATE TRIGGER reset_all BEFORE INSERT ON mesh_journal_record"
              + " FOR EACH ROW EXECUTE FUNCTION reset_all()");
      j.append(PostgresJournalTest.authorised(1));
      j.append(PostgresJournalTest.authorised(2));
      List<String> seen = seen(server, database);
      assertThat(seen).hasSize(2);
      assertThat(seen.get(0))
          .as("the batch before the reset")
          .isEqualTo("on 30s 45s warning public, pg_temp");
      assertThat(seen.get(1)).as("the batch after the reset").isEqualTo(seen.get(0));
    }
  }

  /**
   * A trigger that resets the settings during the batch's own insert: set again only ahead of the
   * insert, they stayed reset for that batch's COMMIT, which ran under the database's {@code
   * synchronous_commit = off} and was acknowledged before the server's disk had it.
   */
  @Test
  void aResetAllByTheBatchsOwnInsert_isUndoneBeforeItsCommit() throws Exception {
    PostgresTestServer server = PostgresTestServer.shared();
    String database =
        databaseSetting(server, "synchronous_commit = off", "client_min_messages = error");
    AtomicReference<Connection> session = new AtomicReference<>();
    try (PostgresJournal j =
        PostgresJournal.open(
            PostgresLocation.parse(server.url(database) + "?lease_ms=60000"),
            PostgresJournalTest.newName(),
            () -> {},
            c -> {
              session.set(c);
              return c;
            })) {
      sql(
          server,
          database,
          "CREATE FUNCTION reset_all() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN"
              + " RESET ALL; RETURN NEW; END $$",
          "CREATE TRIGGER reset_all BEFORE INSERT ON mesh_journal_record"
              + " FOR EACH ROW EXECUTE FUNCTION reset_all()");
      j.append(PostgresJournalTest.authorised(0));
      // Nothing runs on the session between the batch's last statement and its COMMIT, nor after
      // it: what it holds now is what the COMMIT ran under.
      try (Statement s = session.get().createStatement();
          ResultSet rs =
              s.executeQuery(
                  "SELECT pg_catalog.current_setting('synchronous_commit'),"
                      + " pg_catalog.current_setting('client_min_messages')")) {
        rs.next();
        assertThat(rs.getString(1)).as("synchronous_commit").isEqualTo("on");
        assertThat(rs.getString(2)).as("client_min_messages").isEqualTo("warning");
      }
    }
  }

  /**
   * The settings and the insert go as three statements in one request: under each of the driver's
   * query modes (the simple protocol inlines the parameters, a server-prepared statement is
   * prepared from the first batch on) every batch is stored, and read back as written.
   */
  @Test
  void theBatchsThreeStatements_storeItsRecords_underEachOfTheDriversQueryModes() throws Exception {
    PostgresTestServer server = PostgresTestServer.shared();
    String database = server.newDatabase();
    for (String mode :
        List.of(
            "preferQueryMode=simple",
            "preferQueryMode=extendedForPrepared",
            "prepareThreshold=1")) {
      PostgresLocation where =
          PostgresLocation.parse(server.url(database) + "?lease_ms=60000&" + mode);
      String name = PostgresJournalTest.newName();
      try (PostgresJournal j = PostgresJournal.open(where, name)) {
        for (int i = 0; i < 3; i++) {
          j.append(PostgresJournalTest.authorised(i));
        }
      }
      assertThat(PostgresJournal.readLines(where, name)).as(mode).hasSize(4);
    }
  }

  /**
   * A new database with {@code settings} of its own ({@code name = value}): what a {@code RESET
   * ALL} on the journal's session goes back to.
   */
  private static String databaseSetting(PostgresTestServer server, String... settings)
      throws Exception {
    String database = server.newDatabase();
    String[] statements = new String[settings.length];
    for (int i = 0; i < settings.length; i++) {
      statements[i] = "ALTER DATABASE " + database + " SET " + settings[i];
    }
    sql(server, database, statements);
    return database;
  }

  private static List<String> seen(PostgresTestServer server, String database) throws Exception {
    List<String> seen = new ArrayList<>();
    try (Connection c = server.connect(database);
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT settings FROM seen ORDER BY n")) {
      while (rs.next()) {
        seen.add(rs.getString(1));
      }
    }
    return seen;
  }

  private static void sql(PostgresTestServer server, String database, String... statements)
      throws Exception {
    try (Connection c = server.connect(database);
        Statement s = c.createStatement()) {
      for (String statement : statements) {
        s.execute(statement);
      }
    }
  }
}
