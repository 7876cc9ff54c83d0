package org.meshjava.journal.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.meshjava.testpg.PostgresTestServer;

/**
 * Openings behind a stuck upgrade of the owner table (SPEC.md 60.7, "Tables"): an owner table made
 * by an earlier version, without the columns recording where each journal was written, while a
 * session holds a lock on it (a DBA's transaction left open). Each opening waits a little for the
 * table to add the columns and goes on without them. With the shortest lease (lease_ms=1000) that
 * wait was a second, under the lock every opening takes to create the tables, for which another
 * opening waits half a second: the second opening was refused naming the first as the lock's
 * holder, and the second's wait for the table outlasted the driver's one-second socket timeout.
 */
class PostgresHomeColumnsWaitTest {
  @BeforeAll
  static void startServer() {
    PostgresSchemaLockTest.startServer();
  }

  @Test
  void twoOpeningsBehindAHeldOwnerTable_withTheShortestLease_bothOpen_andALaterOneAddsTheColumns()
      throws Exception {
    String database = PostgresSchemaLockTest.server.newDatabase();
    String user = PostgresTestServer.USER;
    PostgresJournal.open(
            PostgresSchemaLockTest.at(database, user, ""), PostgresJournalTest.newName())
        .close();
    PostgresSchemaLockTest.sql(
        database,
        "ALTER TABLE mesh_journal_owner DROP COLUMN cluster_id, DROP COLUMN database_oid");

    List<Long> epochs = new ArrayList<>();
    try (Connection holder = PostgresSchemaLockTest.server.connect(database);
        Statement s = holder.createStatement()) {
      holder.setAutoCommit(false);
      s.execute("LOCK TABLE mesh_journal_owner IN ACCESS SHARE MODE");
      try (ExecutorService two = Executors.newFixedThreadPool(2)) {
        List<Future<Long>> openings = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
          openings.add(
              two.submit(
                  () -> {
                    try (PostgresJournal j =
                        PostgresJournal.open(
                            PostgresSchemaLockTest.at(database, user, "?lease_ms=1000"),
                            PostgresJournalTest.newName())) {
                      j.append(PostgresJournalTest.authorised(0));
                      return j.epoch();
                    }
                  }));
        }
        for (Future<Long> opening : openings) {
          epochs.add(opening.get());
        }
      }
      holder.rollback();
    }
    assertThat(epochs).containsExactly(1L, 1L);
    assertThat(
            PostgresSchemaLockTest.count(
                database,
                "pg_attribute WHERE attrelid = 'mesh_journal_owner'::regclass"
                    + " AND attname IN ('cluster_id', 'database_oid') AND NOT attisdropped"))
        .as("not added while the table was held")
        .isZero();

    PostgresJournal.open(
            PostgresSchemaLockTest.at(database, user, "?lease_ms=1000"),
            PostgresJournalTest.newName())
        .close();
    assertThat(
            PostgresSchemaLockTest.count(
                database,
                "pg_attribute WHERE attrelid = 'mesh_journal_owner'::regclass"
                    + " AND attname IN ('cluster_id', 'database_oid') AND NOT attisdropped"))
        .isEqualTo(2);
  }
}
