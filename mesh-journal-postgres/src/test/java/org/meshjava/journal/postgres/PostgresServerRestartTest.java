package org.meshjava.journal.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.meshjava.journal.postgres.PostgresJournalTest.authorised;
import static org.meshjava.journal.postgres.PostgresJournalTest.newName;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.meshjava.journal.JournalException;
import org.meshjava.testpg.PostgresTestServer;

/**
 * The database restarted under a journal (SPEC.md 60.7, "Faults"): a fast shutdown ends every
 * session, the journal's with its lock. The journal never reconnects; what it was doing is refused
 * typed, and a reopening after the restart finds every acknowledged record once, none of a refused
 * batch, and raises the epoch past the one the refused journal held. A server of this class's own,
 * since restarting the shared one would end other classes' sessions; {@code slow} for that server's
 * start (about 10 s in all).
 */
@Tag("slow")
class PostgresServerRestartTest {
  private static PostgresTestServer server;

  @BeforeAll
  static void startServer() {
    server = PostgresTestServer.start(false);
  }

  @AfterAll
  static void stopServer() {
    server.close();
  }

  @Test
  void aRestartBetweenServes_refusesTheNextAppend_andTheReopeningHasEveryRecordOnce()
      throws Exception {
    PostgresLocation where = PostgresLocation.parse(server.url(server.newDatabase()));
    String name = newName();
    long count;
    try (PostgresJournal j = PostgresJournal.open(where, name)) {
      j.append(authorised(0));
      j.append(authorised(1));
      count = j.position().count();
      server.stop();
      server.start();
      JournalException e =
          catchThrowableOfType(JournalException.class, () -> j.append(authorised(2)));
      assertThat(e).as("the append after the restart").isNotNull();
      assertThat(e.reason()).as(e.getMessage()).isEqualTo(JournalException.Reason.FAILED);
      assertThat(j.locked()).isFalse();
    }
    assertReopened(where, name, count, 2);
  }

  @Test
  void aRestartDuringABatch_refusesIt_andNothingOfItIsStored() throws Exception {
    String database = server.newDatabase();
    PostgresLocation where = PostgresLocation.parse(server.url(database) + "?lease_ms=5000");
    String name = newName();
    long count;
    try (PostgresJournal j = PostgresJournal.open(where, name)) {
      j.append(authorised(0));
      count = j.position().count();
      sql(
          database,
          "CREATE FUNCTION sleepy() RETURNS trigger LANGUAGE plpgsql AS"
              + " $$ BEGIN PERFORM pg_sleep(2); RETURN NEW; END $$",
          "CREATE TRIGGER sleepy BEFORE INSERT ON mesh_journal_record"
              + " FOR EACH ROW EXECUTE FUNCTION sleepy()");
      CompletableFuture<?> batch = inBackground(() -> j.append(authorised(1)));
      awaitSession(database, "wait_event = 'PgSleep'");
      server.stop();
      server.start();
      assertRefused(batch, JournalException.Reason.FAILED);
      assertThat(j.locked()).isFalse();
    }
    sql(database, "DROP TRIGGER sleepy ON mesh_journal_record");
    assertReopened(where, name, count, 2);
  }

  @Test
  void aRestartDuringTheWaitForTheSchemaLock_refusesTheOpening_andTheNextOneOpens()
      throws Exception {
    String database = server.newDatabase();
    PostgresLocation where = PostgresLocation.parse(server.url(database));
    String name = newName();
    Connection holder = server.connect(database);
    try (Statement s = holder.createStatement()) {
      s.execute(
          "SELECT pg_advisory_lock("
              + (int) (JournalSchema.SCHEMA_LOCK >>> 32)
              + ", "
              + (int) JournalSchema.SCHEMA_LOCK
              + ")");
    }
    CompletableFuture<?> opening = inBackground(() -> PostgresJournal.open(where, name).close());
    PostgresSnapshotTerminatedTest.waitingForLock(
        server, database, "SELECT pg_catalog.pg_advisory_xact_lock(");
    server.stop();
    holder.close();
    server.start();
    assertRefused(opening, JournalException.Reason.IO);
    assertReopened(where, name, 0, 1);
  }

  /** What the journal does in {@code step}, on another thread; its refusal is the cause. */
  private static CompletableFuture<?> inBackground(JournalStep step) {
    CompletableFuture<?> done = new CompletableFuture<>();
    Thread.ofPlatform()
        .start(
            () -> {
              try {
                step.run();
                done.complete(null);
              } catch (JournalException | RuntimeException e) {
                done.completeExceptionally(e);
              }
            });
    return done;
  }

  /** Waits for {@code step}, which the restart cut: it must be refused for {@code reason}. */
  private static void assertRefused(CompletableFuture<?> step, JournalException.Reason reason) {
    Throwable t =
        catchThrowableOfType(ExecutionException.class, () -> step.get(30, TimeUnit.SECONDS));
    assertThat(t).as("the step the restart cut").isNotNull();
    assertThat(t.getCause()).isInstanceOf(JournalException.class);
    JournalException e = (JournalException) t.getCause();
    assertThat(e.reason()).as(e.getMessage()).isEqualTo(reason);
  }

  /** A step of the journal's that may be refused. */
  private interface JournalStep {
    void run() throws JournalException;
  }

  /** Reopens: {@code count} records, each once, at {@code epoch}; and it takes a new one. */
  private static void assertReopened(PostgresLocation where, String name, long count, long epoch)
      throws Exception {
    try (PostgresJournal j = PostgresJournal.open(where, name)) {
      assertThat(j.position().count()).as("records after the restart").isEqualTo(count);
      assertThat(j.epoch()).isEqualTo(epoch);
      j.append(authorised(7));
    }
    assertThat(PostgresJournal.readLines(where, name)).hasSizeGreaterThan((int) count);
  }

  /** Waits until a session of {@code database} matches {@code condition} (pg_stat_activity). */
  private static void awaitSession(String database, String condition) throws Exception {
    try (Connection c = server.connect(database);
        Statement s = c.createStatement()) {
      for (int i = 0; i < 1500; i++) {
        try (ResultSet rs =
            s.executeQuery(
                "SELECT count(*) FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND "
                    + condition)) {
          rs.next();
          if (rs.getLong(1) > 0) {
            return;
          }
        }
        Thread.sleep(20);
      }
    }
    throw new AssertionError("no session of " + database + " where " + condition);
  }

  private static void sql(String database, String... statements) throws Exception {
    try (Connection c = server.connect(database);
        Statement s = c.createStatement()) {
      for (String statement : statements) {
        s.execute(statement);
      }
    }
  }
}
