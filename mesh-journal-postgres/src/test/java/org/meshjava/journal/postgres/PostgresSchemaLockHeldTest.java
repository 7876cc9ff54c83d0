package org.meshjava.journal.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.meshjava.journal.postgres.PostgresSchemaLockTest.at;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.meshjava.journal.JournalException;
import org.meshjava.testpg.PostgresTestServer;

/**
 * Another session holding the advisory lock that serialises creating the journal's tables (SPEC.md
 * 60.7, "Tables"): a DBA's session, or an application's whose two-integer key is the same. Every
 * opening in the database waited for it until the driver gave up a lease later, refused in words
 * for a lost connection ("An I/O error occurred while sending to the backend"), naming neither the
 * lock nor the session. It is now refused IO at half the lease, naming both.
 */
class PostgresSchemaLockHeldTest {
  @BeforeAll
  static void startServer() {
    PostgresSchemaLockTest.startServer();
  }

  /**
   * A database whose {@code statement_timeout} is shorter than half the lease: the journal raises
   * it to half the lease, which is shorter than the lock's wait (half the socket timeout, the lease
   * rounded up to whole seconds) or as short, and the server reports the statement's timeout where
   * both run out: the opening was refused "canceling statement due to statement timeout", naming
   * neither the lock nor its holder.
   */
  @Test
  void underADatabasesStatementTimeout_theHolderIsStillNamed() throws Exception {
    String database = PostgresSchemaLockTest.server.newDatabase();
    try (Connection c = PostgresSchemaLockTest.server.connect(database);
        Statement s = c.createStatement()) {
      s.execute("ALTER DATABASE " + database + " SET statement_timeout = '100ms'");
    }
    // Half the lease (750ms) is shorter than half the socket timeout (1 s of its 2 s) here.
    assertHolderNamed(database, "?lease_ms=1500");
  }

  /**
   * A URL lifting the driver's socket timeout: the wait is then the session's lock_timeout (the
   * URL's lock_timeout_ms), yet the refusal said the lock was held "for half the lease".
   */
  @Test
  void withoutASocketTimeout_theRefusalNamesTheLockTimeoutItWaited() throws Exception {
    String refusal =
        assertHolderNamed(
            PostgresSchemaLockTest.server.newDatabase(),
            "?lease_ms=2000&lock_timeout_ms=150&socketTimeout=0");
    assertThat(refusal).contains("for 150ms").doesNotContain("half the lease");
  }

  /**
   * A URL lifting the socket timeout and waiting longer for locks than half the lease, in a
   * database with a {@code statement_timeout}: the journal raised that to half the lease (500ms),
   * which ran out before the lock's wait (900ms), and the opening was refused "canceling statement
   * due to statement timeout", naming neither the lock nor its holder.
   */
  @Test
  void withoutASocketTimeout_aStatementTimeoutShorterThanTheLockWait_stillNamesTheHolder()
      throws Exception {
    String database = PostgresSchemaLockTest.server.newDatabase();
    try (Connection c = PostgresSchemaLockTest.server.connect(database);
        Statement s = c.createStatement()) {
      s.execute("ALTER DATABASE " + database + " SET statement_timeout = '100ms'");
    }
    String refusal =
        assertHolderNamed(database, "?lease_ms=1000&lock_timeout_ms=900&socketTimeout=0");
    assertThat(refusal).contains("for 900ms");
  }

  /** Also the plain case: a session holding the lock is named by the opening it holds up. */
  @Test
  void withASocketTimeout_theRefusalNamesHalfOfIt() throws Exception {
    String refusal =
        assertHolderNamed(PostgresSchemaLockTest.server.newDatabase(), "?lease_ms=1000");
    assertThat(refusal).contains("for 500ms (half the driver's socketTimeout)");
  }

  private static String assertHolderNamed(String database, String parameters) throws Exception {
    String refusal;
    try (Connection holder = PostgresSchemaLockTest.server.connect(database);
        Statement s = holder.createStatement()) {
      long pid;
      try (ResultSet rs =
          s.executeQuery(
              "SELECT pg_backend_pid(), pg_advisory_lock("
                  + (int) (JournalSchema.SCHEMA_LOCK >>> 32)
                  + ", "
                  + (int) JournalSchema.SCHEMA_LOCK
                  + ")")) {
        rs.next();
        pid = rs.getLong(1);
      }
      Throwable t =
          catchThrowable(
              () ->
                  PostgresJournal.open(
                          at(database, PostgresTestServer.USER, parameters),
                          PostgresJournalTest.newName())
                      .close());
      assertThat(t).isInstanceOf(JournalException.class);
      JournalException e = (JournalException) t;
      assertThat(e.reason()).as(e.getMessage()).isEqualTo(JournalException.Reason.IO);
      assertThat(e.getMessage())
          .contains("lock that serialises creating the journal's tables")
          .contains("pid " + pid)
          .contains("pg_terminate_backend(" + pid + ")");
      refusal = e.getMessage();
    }
    // Once it is let go, the database opens as ever.
    PostgresJournal.open(at(database, PostgresTestServer.USER, ""), PostgresJournalTest.newName())
        .close();
    return refusal;
  }
}
