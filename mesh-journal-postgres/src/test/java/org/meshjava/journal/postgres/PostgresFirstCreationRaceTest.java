package org.meshjava.journal.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.Statement;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.meshjava.journal.JournalException;
import org.meshjava.testpg.PostgresTestServer;

/**
 * Two stewards making a database's journal tables at the same first instant, one of them of an
 * earlier version whose lock serialising that creation had another key (SPEC.md 60.7, "Schema"):
 * both open.
 */
class PostgresFirstCreationRaceTest {
  @Test
  void aTableMadeMeanwhileByAStewardNotHoldingTheSameLock_leavesTheOpeningToTryAgain_andOpen()
      throws Exception {
    PostgresTestServer server = PostgresTestServer.shared();
    String db = server.newDatabase();
    PostgresLocation where = PostgresLocation.parse(server.url(db));
    String name = PostgresJournalTest.newName();
    try (Connection earlier = server.connect(db);
        Statement s = earlier.createStatement()) {
      // The earlier version's creation: its lock the one-bigint key, then the same tables.
      earlier.setAutoCommit(false);
      s.execute(
          "SELECT pg_advisory_xact_lock(" + JournalSchema.lockKey("mesh-journal schema") + ")");
      s.execute(
          "CREATE TABLE IF NOT EXISTS mesh_journal_owner ("
              + " journal text PRIMARY KEY, epoch bigint NOT NULL CHECK (epoch > 0))");
      CompletableFuture<PostgresJournal> opening =
          CompletableFuture.supplyAsync(
              () -> {
                try {
                  return PostgresJournal.open(where, name);
                } catch (JournalException e) {
                  throw new CompletionException(e);
                }
              });
      // Ours finds no table yet and makes its own, which waits on the catalog's unique index for
      // the earlier one's transaction: its commit is the instant the two collide.
      PostgresSnapshotTerminatedTest.waitingForLock(server, db, "CREATE TABLE");
      earlier.commit();
      try (PostgresJournal j =
          opening.get(PostgresJournalFaultTest.GUARD_SECONDS, TimeUnit.SECONDS)) {
        j.append(PostgresJournalTest.authorised(0));
        assertThat(j.epoch()).isEqualTo(1);
      }
    }
    assertThat(PostgresJournal.readLines(where, name)).hasSize(2);
  }
}
