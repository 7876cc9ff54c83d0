package org.meshjava.journal.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.meshjava.journal.postgres.PostgresSchemaLockTest.at;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.meshjava.journal.JournalException;
import org.meshjava.journal.SnapshotException;
import org.meshjava.testpg.PostgresTestServer;

/**
 * A DBA's session holding a lock the journal's statements need (SPEC.md 60.7, "Faults"), under a
 * role with no {@code lock_timeout} and a URL that lifts the driver's {@code socketTimeout}:
 * nothing else bounds the wait, so before the journal set its own {@code lock_timeout} ({@code
 * lock_timeout_ms}, half the lease unless the URL says) a snapshot save's {@code LOCK TABLE} and a
 * batch's insert waited for as long as the DBA held it, and every serve behind the batch with them.
 * Each is now refused at the journal's limit, typed, naming the session that holds the lock, and
 * stores nothing.
 */
class PostgresLockTimeoutTest {
  private static final String UNBOUNDED = "?lease_ms=2000&lock_timeout_ms=300&socketTimeout=0";

  /** How long a refused statement may take here: the 300 ms limit, on a loaded machine. */
  private static final long REFUSED_WITHIN_SECONDS = 30;

  @BeforeAll
  static void startServer() {
    PostgresSchemaLockTest.startServer();
  }

  @Test
  void aSaveWaitingForTheSnapshotTablesLock_isRefusedIo_atTheJournalsLockTimeout_namingTheHolder()
      throws Exception {
    String database = PostgresSchemaLockTest.server.newDatabase();
    PostgresLocation where = at(database, PostgresTestServer.USER, UNBOUNDED);
    PostgresSnapshotStore store = PostgresSnapshotStore.of(where, "did:key:a");
    store.save(PostgresSnapshotStoreTest.at(1));
    try (Connection dba = PostgresSchemaLockTest.server.connect(database);
        Statement s = dba.createStatement()) {
      dba.setAutoCommit(false);
      long pid = pid(s);
      s.execute("LOCK TABLE mesh_journal_snapshot IN ACCESS EXCLUSIVE MODE");
      CompletableFuture<Void> saving =
          CompletableFuture.runAsync(
              () -> {
                try {
                  store.save(PostgresSnapshotStoreTest.at(2));
                } catch (SnapshotException e) {
                  throw new CompletionException(e);
                }
              });
      assertThatThrownBy(() -> saving.get(REFUSED_WITHIN_SECONDS, TimeUnit.SECONDS))
          .cause()
          .isInstanceOfSatisfying(
              SnapshotException.class,
              e -> {
                assertThat(e.reason()).isEqualTo(SnapshotException.Reason.IO);
                assertThat(e.getMessage())
                    .contains("mesh_journal_snapshot")
                    .contains("lock_timeout_ms=300")
                    .contains("pid " + pid)
                    .contains("pg_terminate_backend(" + pid + ")");
              });
      dba.rollback();
    }
    assertThat(store.latestHeader().orElseThrow().position().count()).isEqualTo(1);
  }

  @Test
  void aBatchWaitingForTheRecordTablesLock_failsTheJournal_atItsLockTimeout_storingNothing()
      throws Exception {
    String database = PostgresSchemaLockTest.server.newDatabase();
    PostgresLocation where = at(database, PostgresTestServer.USER, UNBOUNDED);
    String name = PostgresJournalTest.newName();
    try (PostgresJournal j = PostgresJournal.open(where, name);
        Connection dba = PostgresSchemaLockTest.server.connect(database);
        Statement s = dba.createStatement()) {
      j.append(PostgresJournalTest.authorised(0));
      dba.setAutoCommit(false);
      long pid = pid(s);
      s.execute("LOCK TABLE mesh_journal_record IN ACCESS EXCLUSIVE MODE");
      CompletableFuture<Void> append =
          CompletableFuture.runAsync(
              () -> {
                try {
                  j.append(PostgresJournalTest.authorised(1));
                } catch (JournalException e) {
                  throw new CompletionException(e);
                }
              });
      assertThatThrownBy(() -> append.get(REFUSED_WITHIN_SECONDS, TimeUnit.SECONDS))
          .cause()
          .isInstanceOfSatisfying(
              JournalException.class,
              e -> {
                assertThat(e.reason()).isEqualTo(JournalException.Reason.FAILED);
                assertThat(e.getMessage())
                    .contains("mesh_journal_record")
                    .contains("lock_timeout_ms=300")
                    .contains("pid " + pid)
                    .contains("pg_terminate_backend(" + pid + ")");
              });
      dba.rollback();
    }
    // The refused batch left nothing, and its session let the journal's lock go at once.
    try (PostgresJournal successor = PostgresJournal.open(where, name)) {
      assertThat(successor.position().count()).isEqualTo(2);
    }
  }

  private static long pid(Statement s) throws Exception {
    try (ResultSet rs = s.executeQuery("SELECT pg_backend_pid()")) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
