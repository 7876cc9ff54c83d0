package org.meshjava.journal.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.meshjava.journal.SnapshotException;
import org.meshjava.testpg.PostgresTestServer;

/**
 * A snapshot save or header read whose session is ended (pg_terminate_backend, a server's shutdown)
 * in the middle of its transaction says why, in the server's words (SPEC.md 60.7, "Faults"), and a
 * save stores nothing.
 */
class PostgresSnapshotTerminatedTest {
  @Test
  void aSaveWhoseSessionIsEnded_isRefusedIo_inTheServersWords() throws Exception {
    PostgresTestServer server = PostgresTestServer.shared();
    String db = server.newDatabase();
    PostgresSnapshotStore store =
        PostgresSnapshotStore.of(PostgresLocation.parse(server.url(db)), "did:key:a");
    store.save(PostgresSnapshotStoreTest.at(1));
    try (Connection blocker = server.connect(db);
        Statement s = blocker.createStatement()) {
      // The save waits for this lock, in its transaction (its first statement there takes the
      // table's lock the insert needs), until its session is ended.
      blocker.setAutoCommit(false);
      s.execute("LOCK TABLE mesh_journal_snapshot IN ACCESS EXCLUSIVE MODE");
      CompletableFuture<Void> saving =
          CompletableFuture.runAsync(
              () -> {
                try {
                  store.save(PostgresSnapshotStoreTest.at(2));
                } catch (SnapshotException e) {
                  throw new java.util.concurrent.CompletionException(e);
                }
              });
      long pid = waitingForLock(server, db, "LOCK TABLE \"public\".mesh_journal_snapshot");
      try (Connection admin = server.connect(db);
          Statement a = admin.createStatement()) {
        a.execute("SELECT pg_terminate_backend(" + pid + ")");
      }
      assertThatThrownBy(() -> saving.get(PostgresJournalFaultTest.GUARD_SECONDS, TimeUnit.SECONDS))
          .cause()
          .isInstanceOfSatisfying(
              SnapshotException.class,
              e -> {
                assertThat(e.reason()).isEqualTo(SnapshotException.Reason.IO);
                assertThat(e.getMessage())
                    .contains(PostgresTerminatedSessionTest.TERMINATED)
                    .doesNotContain("has been closed");
              });
      blocker.rollback();
    }
    assertThat(store.latestHeader().orElseThrow().position().count()).isEqualTo(1);
  }

  /**
   * Ended after the save's checks, before its insert: the insert, the delete of the older rows and
   * the commit never run, and the newest two snapshots stay as they were.
   */
  @Test
  void aSaveWhoseSessionIsEndedBeforeItsInsert_isRefusedIo_andLeavesTheRowsAsTheyWere()
      throws Exception {
    PostgresTestServer server = PostgresTestServer.shared();
    String db = server.newDatabase();
    PostgresLocation where = PostgresLocation.parse(server.url(db));
    PostgresSnapshotStore.of(where, "did:key:a").save(PostgresSnapshotStoreTest.at(1));
    PostgresSnapshotStore.of(where, "did:key:a").save(PostgresSnapshotStoreTest.at(2));
    PostgresSnapshotStore ended =
        PostgresSnapshotStore.of(
            where,
            "did:key:a",
            () -> {
              try (Connection admin = server.connect(db);
                  Statement a = admin.createStatement()) {
                // Every other session of the database: the save's alone, here.
                a.execute(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                        + " WHERE datname = current_database() AND pid <> pg_backend_pid()");
              } catch (java.sql.SQLException e) {
                throw new IllegalStateException(e);
              }
            });
    assertThatThrownBy(() -> ended.save(PostgresSnapshotStoreTest.at(3)))
        .isInstanceOfSatisfying(
            SnapshotException.class,
            e -> assertThat(e.reason()).isEqualTo(SnapshotException.Reason.IO));
    PostgresSchemaLockTest.startServer();
    assertThat(PostgresSchemaLockTest.count(db, "mesh_journal_snapshot")).isEqualTo(2);
    assertThat(
            PostgresSnapshotStore.of(where, "did:key:a")
                .latestHeader()
                .orElseThrow()
                .position()
                .count())
        .isEqualTo(2);
  }

  @Test
  void aHeaderReadWhoseSessionIsEndedBetweenItsReads_isRefusedIo_inTheServersWords()
      throws Exception {
    PostgresTestServer server = PostgresTestServer.shared();
    String db = server.newDatabase();
    PostgresSnapshotStore store =
        PostgresSnapshotStore.of(PostgresLocation.parse(server.url(db)), "did:key:a");
    store.save(PostgresSnapshotStoreTest.at(1));
    try (Connection admin = server.connect(db);
        Statement a = admin.createStatement()) {
      // The header is read by a query for the row's size and then slices of it, in one
      // transaction. The table becomes a view whose snapshot column ends its reader's own session
      // the second time it is read in a transaction: after the size, at the first slice.
      a.execute("ALTER TABLE mesh_journal_snapshot RENAME TO kept");
      a.execute(
          "CREATE FUNCTION second_read_ends(b bytea) RETURNS bytea LANGUAGE plpgsql AS $$"
              + " BEGIN"
              + " IF current_setting('pg30.reads', true) = '1' THEN"
              + " PERFORM pg_terminate_backend(pg_backend_pid()); PERFORM pg_sleep(5);"
              + " END IF;"
              + " PERFORM set_config('pg30.reads', '1', true);"
              + " RETURN b; END $$");
      a.execute(
          "CREATE VIEW mesh_journal_snapshot AS"
              + " SELECT journal, count, second_read_ends(snapshot) AS snapshot FROM kept");
    }
    assertThatThrownBy(store::latestHeader)
        .isInstanceOfSatisfying(
            SnapshotException.class,
            e -> {
              assertThat(e.reason()).isEqualTo(SnapshotException.Reason.IO);
              assertThat(e.getMessage())
                  .contains(PostgresTerminatedSessionTest.TERMINATED)
                  .doesNotContain("has been closed");
            });
  }

  /**
   * The server process of the session in {@code db} whose statement, starting {@code statement},
   * waits for a lock.
   */
  static long waitingForLock(PostgresTestServer server, String db, String statement)
      throws Exception {
    return waitingForLock(server, db, statement, () -> false);
  }

  /**
   * {@link #waitingForLock(PostgresTestServer, String, String)}, or -1 once {@code over} says the
   * statement's caller has finished without it being seen waiting (its statement failed at once).
   */
  static long waitingForLock(
      PostgresTestServer server, String db, String statement, BooleanSupplier over)
      throws Exception {
    long deadline =
        System.nanoTime() + TimeUnit.SECONDS.toNanos(PostgresJournalFaultTest.GUARD_SECONDS);
    try (Connection c = server.connect(db);
        PreparedStatement s =
            c.prepareStatement(
                "SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
                    + " AND starts_with(query, ?)")) {
      s.setString(1, statement);
      while (System.nanoTime() < deadline) {
        if (over.getAsBoolean()) {
          return -1;
        }
        try (ResultSet rs = s.executeQuery()) {
          if (rs.next()) {
            return rs.getLong(1);
          }
        }
        Thread.sleep(20);
      }
    }
    throw new AssertionError("no " + statement + " ever waited for a lock");
  }
}
