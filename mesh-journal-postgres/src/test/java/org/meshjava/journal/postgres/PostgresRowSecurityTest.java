package org.meshjava.journal.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.Test;
import org.meshjava.journal.JournalException;
import org.meshjava.testpg.PostgresTestServer;

/**
 * Row-level security switched on over the journal's records (SPEC.md 60.7, "Faults"): a policy that
 * hides rows from the steward's role would have a part of the journal read as the whole.
 */
class PostgresRowSecurityTest {
  @Test
  void rowSecurityHidingTheTailOfTheRecords_isRefusedIo_byOpeningAndByTheTools() throws Exception {
    PostgresTestServer server = PostgresTestServer.shared();
    String database = server.newDatabase();
    String name = PostgresJournalTest.newName();
    try (PostgresJournal j =
        PostgresJournal.open(PostgresLocation.parse(server.url(database)), name)) {
      j.append(PostgresJournalTest.authorised(0));
      j.append(PostgresJournalTest.authorised(1));
    }
    String role = tablesRole(server, database);
    try (Connection c = server.connect(database);
        Statement s = c.createStatement()) {
      // A DBA's policy that lets the role see only the first records (every role but the
      // table's owner and superusers is held to it).
      s.execute("ALTER TABLE mesh_journal_record ENABLE ROW LEVEL SECURITY");
      s.execute("CREATE POLICY early ON mesh_journal_record USING (seq < 2)");
    }
    PostgresLocation asRole = as(server, role, database);
    assertThatThrownBy(() -> PostgresJournal.open(asRole, name))
        .isInstanceOfSatisfying(
            JournalException.class,
            e -> {
              assertThat(e.reason()).isEqualTo(JournalException.Reason.IO);
              assertThat(e.getMessage()).contains("row-level security applies to role " + role);
            });
    // An export would otherwise write the first two records as the whole journal.
    assertThatThrownBy(() -> PostgresJournal.readLines(asRole, name))
        .isInstanceOfSatisfying(
            JournalException.class, e -> assertThat(e.getMessage()).contains("row-level security"));
  }

  /**
   * A new login role of {@code database}, neither a superuser nor the tables' owner, granted what a
   * steward needs on the journal's tables.
   */
  static String tablesRole(PostgresTestServer server, String database) throws SQLException {
    String role = "r" + Long.toHexString(System.nanoTime());
    try (Connection c = server.connect(database);
        Statement s = c.createStatement()) {
      s.execute("CREATE ROLE " + role + " LOGIN");
      s.execute(
          "GRANT SELECT, INSERT, UPDATE ON mesh_journal_owner, mesh_journal_record,"
              + " mesh_journal_snapshot TO "
              + role);
    }
    return role;
  }

  /** {@code database} reached as {@code role}. */
  static PostgresLocation as(PostgresTestServer server, String role, String database) {
    return PostgresLocation.parse(
        "postgresql://" + role + "@127.0.0.1:" + server.port() + "/" + database);
  }
}
