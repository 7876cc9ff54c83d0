package org.meshjava.journal.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import org.junit.jupiter.api.Test;
import org.meshjava.testpg.PostgresTestServer;

/**
 * A transaction-pooling proxy between the steward and the server (PgBouncer in transaction mode;
 * SPEC.md 60.7, "Schema"): each transaction runs on whichever server connection is free, so the
 * {@code search_path} the journal pinned as it connected holds for none of the statements after.
 * The journal's statements named its tables without their schema, and under the path such a server
 * connection had ({@code public}, the default) they read and wrote the tables of the same names
 * there: a journal kept in another schema was opened afresh in {@code public}, every grant's budget
 * back. Every statement now names its tables in full.
 */
class PostgresPooledPathTest {
  /**
   * The journal's session as such a proxy gives it: before each statement is made, the path is set
   * to {@code public}, as another client's server connection would have it.
   */
  private static Connection resettingThePath(Connection real) {
    return (Connection)
        Proxy.newProxyInstance(
            Connection.class.getClassLoader(),
            new Class<?>[] {Connection.class},
            (p, m, args) -> {
              if (m.getName().equals("prepareStatement") || m.getName().equals("createStatement")) {
                try (Statement s = real.createStatement()) {
                  s.execute("SET search_path = public");
                }
              }
              try {
                return m.invoke(real, args);
              } catch (InvocationTargetException e) {
                throw e.getCause();
              }
            });
  }

  @Test
  void aPathResetBeforeEveryStatement_keepsTheJournalInItsSchema_andPublicsTablesUntouched()
      throws Exception {
    PostgresTestServer server = PostgresTestServer.shared();
    String database = server.newDatabase();
    // Another journal's tables in public, of the same names: the ones a reset path reaches.
    PostgresLocation inPublic = PostgresLocation.parse(server.url(database));
    try (PostgresJournal other = PostgresJournal.open(inPublic, PostgresJournalTest.newName())) {
      other.append(PostgresJournalTest.authorised(0));
    }
    try (Connection c = server.connect(database);
        Statement s = c.createStatement()) {
      s.execute("CREATE SCHEMA mesh");
    }
    String before = publicTables(server, database);
    PostgresLocation at = PostgresLocation.parse(server.url(database) + "?schema=mesh");
    String name = PostgresJournalTest.newName();

    try (PostgresJournal j =
        PostgresJournal.open(at, name, () -> {}, PostgresPooledPathTest::resettingThePath)) {
      j.append(PostgresJournalTest.authorised(0));
      j.append(PostgresJournalTest.authorised(1));
    }
    try (PostgresJournal j =
        PostgresJournal.open(at, name, () -> {}, PostgresPooledPathTest::resettingThePath)) {
      assertThat(j.epoch()).as("the owner row in schema mesh raised").isEqualTo(2);
      assertThat(j.position().count()).as("its records read from schema mesh").isEqualTo(3);
      j.append(PostgresJournalTest.authorised(2));
    }

    assertThat(PostgresJournal.readLines(at, name)).hasSize(4);
    assertThat(publicTables(server, database)).as("public's tables").isEqualTo(before);
  }

  /** Every row of public's journal tables, in words. */
  private static String publicTables(PostgresTestServer server, String database) throws Exception {
    try (Connection c = server.connect(database);
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT (SELECT string_agg(journal || ':' || epoch, ',')"
                    + " FROM public.mesh_journal_owner),"
                    + " (SELECT string_agg(journal || ':' || seq, ',' ORDER BY seq)"
                    + " FROM public.mesh_journal_record)")) {
      rs.next();
      return rs.getString(1) + " / " + rs.getString(2);
    }
  }
}
