package org.meshjava.journal.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import org.junit.jupiter.api.Test;
import org.meshjava.journal.SnapshotException;
import org.meshjava.testpg.PostgresTestServer;

/**
 * What a snapshot save refused at the journal's {@code lock_timeout} (SPEC.md 60.7, "Faults") says
 * of the sessions holding the table's locks.
 */
class PostgresSnapshotLockRefusalTest {
  /**
   * A reader's lock beside the DBA's that holds the save up: the refusal named the reader too, and
   * its pid, the lower, as the session to end, though its lock does not conflict with the save's.
   */
  @Test
  void aReadersLockBesideTheHolders_isNotNamed() throws Exception {
    String database = PostgresTestServer.shared().newDatabase();
    PostgresSnapshotStore store =
        PostgresSnapshotStore.of(
            PostgresLocation.parse(
                PostgresTestServer.shared().url(database)
                    + "?lease_ms=2000&lock_timeout_ms=100&socketTimeout=0"),
            "did:key:a");
    store.save(PostgresSnapshotStoreTest.at(1));
    try (Connection reader = PostgresTestServer.shared().connect(database);
        Statement r = reader.createStatement();
        Connection dba = PostgresTestServer.shared().connect(database);
        Statement s = dba.createStatement()) {
      reader.setAutoCommit(false);
      long readerPid = pid(r);
      r.executeQuery("SELECT count(*) FROM mesh_journal_snapshot").close();
      dba.setAutoCommit(false);
      long dbaPid = pid(s);
      // SHARE conflicts with the save's ROW EXCLUSIVE, not with the reader's ACCESS SHARE.
      s.execute("LOCK TABLE mesh_journal_snapshot IN SHARE MODE");
      Throwable t = catchThrowable(() -> store.save(PostgresSnapshotStoreTest.at(2)));
      dba.rollback();
      reader.rollback();
      assertThat(t).isInstanceOf(SnapshotException.class);
      assertThat(t.getMessage())
          .contains("pid " + dbaPid)
          .contains("pg_terminate_backend(" + dbaPid + ")")
          .doesNotContain("pid " + readerPid + " ");
    }
  }

  private static long pid(Statement s) throws Exception {
    try (ResultSet rs = s.executeQuery("SELECT pg_backend_pid()")) {
      rs.next();
      return rs.getLong(1);
    }
  }

  /**
   * Where the look-up of the session holding the lock fails too (a role that may not read {@code
   * pg_locks}), its error replaced the server's refusal as the save's message and cause: the
   * operator read "permission denied for view pg_locks", not that a lock was waited for. The
   * server's refusal is kept, the look-up's failure beside it, suppressed.
   */
  @Test
  void aSaveRefusedAtTheLockTimeout_keepsTheServersRefusal_whenItsHolderCannotBeLookedUp()
      throws Exception {
    StewardRoleJournal journal = StewardRoleJournal.of(0);
    journal.sql(
        "GRANT DELETE ON mesh_journal_snapshot TO " + journal.quotedRole(),
        "REVOKE SELECT ON pg_catalog.pg_locks FROM PUBLIC");
    PostgresSnapshotStore store =
        PostgresSnapshotStore.of(
            journal.asRole("?lease_ms=2000&lock_timeout_ms=100&socketTimeout=0"), journal.name());
    try (Connection dba = PostgresTestServer.shared().connect(journal.database());
        Statement s = dba.createStatement()) {
      dba.setAutoCommit(false);
      s.execute("LOCK TABLE mesh_journal_snapshot IN ACCESS EXCLUSIVE MODE");
      Throwable t = catchThrowable(() -> store.save(PostgresSnapshotStoreTest.at(1)));
      dba.rollback();
      assertThat(t).isInstanceOf(SnapshotException.class);
      SnapshotException e = (SnapshotException) t;
      assertThat(e.reason()).isEqualTo(SnapshotException.Reason.IO);
      assertThat(e.getMessage()).as("the server's refusal").contains("lock timeout");
      assertThat(e.getCause().getSuppressed())
          .as("the look-up's failure, beside it")
          .singleElement()
          .satisfies(lookup -> assertThat(lookup.getMessage()).contains("permission denied"));
    }
  }
}
