package org.meshjava.journal.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;
import org.meshjava.journal.JournalException;
import org.meshjava.testpg.PostgresTestServer;

/**
 * An import or an export behind a DBA's lock on the record table (SPEC.md 60.7, "Faults"), refused
 * at the journal's {@code lock_timeout}: the refusal gave only the server's "canceling statement
 * due to lock timeout", naming neither the table nor the session holding it, as the journal's other
 * refusals at that limit do.
 */
class PostgresImportExportLockTimeoutTest {
  private static final String LIMITED = "?lease_ms=2000&lock_timeout_ms=100&socketTimeout=0";

  @Test
  void anImportBehindADbasLock_namesTheTableAndItsHolder() throws Exception {
    String database = PostgresTestServer.shared().newDatabase();
    PostgresLocation at =
        PostgresLocation.parse(PostgresTestServer.shared().url(database) + LIMITED);
    // The tables made, so that the DBA can lock one.
    PostgresJournal.open(at, PostgresJournalTest.newName()).close();
    String name = PostgresJournalTest.newName();
    // SHARE lets the opening read the records and stops the import's insert.
    assertNamed(
        database,
        "SHARE",
        () -> PostgresJournal.importLines(at, name, PostgresJournalTest.receiptLines(3)));
  }

  @Test
  void anExportBehindADbasLock_namesTheTableAndItsHolder() throws Exception {
    String database = PostgresTestServer.shared().newDatabase();
    PostgresLocation at =
        PostgresLocation.parse(PostgresTestServer.shared().url(database) + LIMITED);
    String name = PostgresJournalTest.newName();
    try (PostgresJournal j = PostgresJournal.open(at, name)) {
      j.append(PostgresJournalTest.authorised(0));
    }
    assertNamed(database, "ACCESS EXCLUSIVE", () -> PostgresJournal.readLines(at, name));
    assertNamed(
        database, "ACCESS EXCLUSIVE", () -> PostgresJournal.readLines(at, name, line -> {}));
  }

  private static void assertNamed(String database, String mode, ThrowingCallable call)
      throws Exception {
    try (Connection dba = PostgresTestServer.shared().connect(database);
        Statement s = dba.createStatement()) {
      dba.setAutoCommit(false);
      long pid;
      try (ResultSet rs = s.executeQuery("SELECT pg_backend_pid()")) {
        rs.next();
        pid = rs.getLong(1);
      }
      s.execute("LOCK TABLE mesh_journal_record IN " + mode + " MODE");
      Throwable t = catchThrowable(call);
      dba.rollback();
      assertThat(t).isInstanceOf(JournalException.class);
      assertThat(((JournalException) t).reason()).isEqualTo(JournalException.Reason.IO);
      assertThat(t.getMessage())
          .contains("mesh_journal_record")
          .contains("lock_timeout_ms=100")
          .contains("pg_terminate_backend(" + pid + ")");
    }
  }
}
