package org.meshjava.journal.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.Statement;
import org.junit.jupiter.api.Test;
import org.meshjava.journal.JournalException;
import org.meshjava.testpg.PostgresTestServer;

/**
 * A DBA who revoked {@code pg_control_system()} from the steward's role (SPEC.md 60.7, "Copies"):
 * the opening cannot record or check where the journal was written, and is refused naming the
 * function and the grant that gives it back, not only in the server's bare "permission denied".
 */
class PostgresControlFunctionRevokedTest {
  @Test
  void aRoleDeniedPgControlSystem_isRefusedIo_namingTheGrantThatGivesItBack() throws Exception {
    PostgresTestServer server = PostgresTestServer.shared();
    String database = server.newDatabase();
    String name = PostgresJournalTest.newName();
    try (PostgresJournal j =
        PostgresJournal.open(PostgresLocation.parse(server.url(database)), name)) {
      j.append(PostgresJournalTest.authorised(0));
    }
    String role = PostgresRowSecurityTest.tablesRole(server, database);
    try (Connection c = server.connect(database);
        Statement s = c.createStatement()) {
      // A function's privileges are the database's own: this database only.
      s.execute("REVOKE EXECUTE ON FUNCTION pg_catalog.pg_control_system() FROM PUBLIC");
    }
    PostgresLocation asRole = PostgresRowSecurityTest.as(server, role, database);

    assertThatThrownBy(() -> PostgresJournal.open(asRole, name))
        .isInstanceOfSatisfying(
            JournalException.class,
            e -> {
              assertThat(e.reason()).isEqualTo(JournalException.Reason.IO);
              assertThat(e.getMessage())
                  .contains("pg_control_system")
                  .contains("GRANT EXECUTE ON FUNCTION pg_catalog.pg_control_system() TO " + role);
            });

    try (Connection c = server.connect(database);
        Statement s = c.createStatement()) {
      s.execute("GRANT EXECUTE ON FUNCTION pg_catalog.pg_control_system() TO " + role);
    }
    try (PostgresJournal j = PostgresJournal.open(asRole, name)) {
      assertThat(j.epoch()).as("given back, the role opens the journal").isEqualTo(2);
    }
  }
}
