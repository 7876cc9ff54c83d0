package org.meshjava.journal.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.sql.Connection;
import java.sql.Statement;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.meshjava.journal.JournalException;
import org.meshjava.journal.SnapshotException;
import org.meshjava.testpg.PostgresTestServer;

/**
 * A steward's role with no {@code CREATE} on the schema where the journal's tables are yet to be
 * made (PostgreSQL 15 gives no role but the database's owner {@code CREATE} on {@code public}). The
 * opening and a snapshot save were refused in the server's words alone, "permission denied for
 * schema public"; each now names the role, the tables and the grant that lets it go on.
 */
class PostgresNoCreatePrivilegeTest {
  @BeforeAll
  static void startServer() {
    PostgresJournalTest.startServer();
  }

  @Test
  void aRoleThatMayNotCreateTheTables_isRefusedAtOpeningAndAtASave_namingTheGrant()
      throws Exception {
    PostgresTestServer server = PostgresJournalTest.server;
    String database = server.newDatabase();
    String role = "creator_" + Long.toHexString(System.nanoTime());
    try (Connection c = server.connect(database);
        Statement s = c.createStatement()) {
      s.execute("CREATE ROLE " + role + " LOGIN");
      s.execute("REVOKE CREATE ON SCHEMA public FROM PUBLIC");
    }
    PostgresLocation asRole =
        PostgresLocation.parse(
            "postgresql://" + role + "@127.0.0.1:" + server.port() + "/" + database);
    String grant = "GRANT CREATE ON SCHEMA public TO " + role;

    JournalException opening =
        catchThrowableOfType(
            JournalException.class,
            () -> PostgresJournal.open(asRole, PostgresJournalTest.newName()).close());
    assertThat(opening).isNotNull();
    assertThat(opening.reason()).isEqualTo(JournalException.Reason.IO);
    assertThat(opening.getMessage())
        .contains("may not create the journal's tables")
        .contains(grant);

    SnapshotException save =
        catchThrowableOfType(
            SnapshotException.class,
            () ->
                PostgresSnapshotStore.of(asRole, "did:key:a")
                    .save(PostgresSnapshotStoreTest.at(1)));
    assertThat(save).isNotNull();
    assertThat(save.getMessage()).contains(grant);
  }
}
