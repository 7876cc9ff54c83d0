package org.meshjava.journal.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.meshjava.journal.postgres.PostgresSchemaLockTest.at;
import static org.meshjava.journal.postgres.PostgresSchemaLockTest.sql;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.meshjava.testpg.PostgresTestServer;

/**
 * PostgreSQL 17's {@code transaction_timeout} (SPEC.md 60.7, "Faults"): a DBA's limit would end an
 * opening's, an import's or an export's one transaction, as long as the journal makes it, and with
 * the opening's session the journal's lock. The journal's sessions lift it; a server without the
 * setting (the test server's 14) has none to lift, and the statement that would is skipped there
 * without an error.
 */
class PostgresTransactionTimeoutTest {
  @BeforeAll
  static void startServer() {
    PostgresSchemaLockTest.startServer();
  }

  @Test
  void aDatabasesTransactionTimeout_isLiftedForTheJournalsSessions_whereTheServerHasIt()
      throws Exception {
    String database = PostgresSchemaLockTest.server.newDatabase();
    boolean has;
    try (Connection c = PostgresSchemaLockTest.server.connect(database);
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery("SELECT count(*) FROM pg_settings WHERE name = 'transaction_timeout'")) {
      rs.next();
      has = rs.getInt(1) == 1;
    }
    if (has) {
      sql(database, "ALTER DATABASE " + database + " SET transaction_timeout = '1s'");
    }
    PostgresLocation where = at(database, PostgresTestServer.USER, "");
    try (Connection c = where.connect();
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT setting FROM pg_settings WHERE name = 'transaction_timeout'"
                    + " UNION ALL SELECT 'absent' WHERE NOT EXISTS"
                    + " (SELECT 1 FROM pg_settings WHERE name = 'transaction_timeout')")) {
      rs.next();
      assertThat(rs.getString(1)).isEqualTo(has ? "0" : "absent");
    }
    String name = PostgresJournalTest.newName();
    try (PostgresJournal j = PostgresJournal.open(where, name)) {
      j.append(PostgresJournalTest.authorised(0));
    }
    assertThat(PostgresJournal.readLines(where, name)).hasSize(2);
  }
}
