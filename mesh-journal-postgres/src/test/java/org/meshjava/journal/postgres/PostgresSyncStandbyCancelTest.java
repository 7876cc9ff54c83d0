package org.meshjava.journal.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.meshjava.journal.postgres.PostgresJournalTest.authorised;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.meshjava.journal.JournalException;
import org.meshjava.testpg.PostgresTestServer;

/**
 * A batch whose COMMIT waits for a synchronous standby, and whose wait is cancelled ({@code
 * pg_cancel_backend}, as an operator clearing stuck sessions does): PostgreSQL answers that COMMIT
 * with success and a warning, the records on the primary's disk but perhaps on no standby. Before,
 * the journal took that answer as durable and acknowledged the batch, so a receipt went out whose
 * record a failover to the standby would lose (SPEC.md 60.7, "Durability"). The journal now refuses
 * the batch, fails, and says the records may be found on restart.
 */
class PostgresSyncStandbyCancelTest {
  /** Something done against the server that may throw. */
  @FunctionalInterface
  interface Attempt {
    void run() throws Exception;
  }

  /** Runs {@code a} on another thread; completes with what it threw, or null. */
  static CompletableFuture<Throwable> attempt(Attempt a) {
    return CompletableFuture.supplyAsync(
        () -> {
          try {
            a.run();
            return null;
          } catch (Throwable t) {
            return t;
          }
        });
  }

  @Test
  @Timeout(300)
  void aCommitWhoseStandbyWaitIsCancelled_isRefused_notAcknowledged() throws Exception {
    cancelACommitsStandbyWait_andExpectItRefused("");
  }

  /**
   * Regression: on a server whose {@code client_min_messages} is above {@code warning} (set to
   * quieten clients), the cancelled wait's warning never reached the journal, so the batch was
   * acknowledged as before pg27's rule.
   */
  @Test
  @Timeout(300)
  void aCommitWhoseStandbyWaitIsCancelled_isRefused_evenWhereTheServerSendsClientsNoWarnings()
      throws Exception {
    cancelACommitsStandbyWait_andExpectItRefused("ALTER SYSTEM SET client_min_messages = 'error'");
  }

  private static void cancelACommitsStandbyWait_andExpectItRefused(String serverSetting)
      throws Exception {
    // A server of its own: every commit on it waits for a standby that never comes.
    try (PostgresTestServer server = PostgresTestServer.start(false)) {
      PostgresLocation at = PostgresLocation.parse(server.url(server.newDatabase()));
      String name = "did:key:test-" + UUID.randomUUID();
      if (!serverSetting.isEmpty()) {
        try (Connection admin = server.connect("postgres");
            Statement s = admin.createStatement()) {
          s.execute(serverSetting);
          s.execute("SELECT pg_reload_conf()");
        }
      }
      try (PostgresJournal j = PostgresJournal.open(at, name);
          Connection admin = server.connect("postgres");
          Statement s = admin.createStatement()) {
        j.append(authorised(0));
        s.execute("ALTER SYSTEM SET synchronous_standby_names = 'nobody'");
        s.execute("SELECT pg_reload_conf()");

        CompletableFuture<Throwable> append = attempt(() -> j.append(authorised(1)));
        // Cancel the commit's wait once it waits for the standby. The reload reaches the journal's
        // session in its own time: until it does, the commit does not wait and is acknowledged,
        // which this test cannot tell from the fault, so it retries with the next record.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        int next = 2;
        boolean cancelled = false;
        while (!cancelled && System.nanoTime() < deadline) {
          try (ResultSet rs =
              s.executeQuery(
                  "SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE wait_event = 'SyncRep'")) {
            cancelled = rs.next();
          }
          if (!cancelled && append.isDone() && append.get() == null) {
            int record = next++;
            append = attempt(() -> j.append(authorised(record)));
          }
          Thread.sleep(20);
        }
        assertThat(cancelled).as("a commit waited for the standby").isTrue();

        assertThat(append.get(120, TimeUnit.SECONDS))
            .as("the append whose commit was not confirmed by the standby")
            .isInstanceOfSatisfying(
                JournalException.class,
                e -> {
                  assertThat(e.reason()).isEqualTo(JournalException.Reason.FAILED);
                  assertThat(e)
                      .hasMessageContaining("committed with a warning")
                      .hasMessageContaining("may still be found on restart");
                });
        assertThat(j.refusesAppends()).isPresent();
        s.execute("ALTER SYSTEM RESET synchronous_standby_names");
        s.execute("SELECT pg_reload_conf()");
      }
    }
  }

  @Test
  @Timeout(300)
  void anImportWhoseCommitsStandbyWaitIsCancelled_isRefused() throws Exception {
    List<byte[]> lines = PostgresJournalTest.receiptLines(3);
    try (PostgresTestServer server = PostgresTestServer.start(false)) {
      PostgresLocation at = PostgresLocation.parse(server.url(server.newDatabase()));
      String name = "did:key:test-" + UUID.randomUUID();
      try (Connection admin = server.connect("postgres");
          Statement s = admin.createStatement()) {
        s.execute("ALTER SYSTEM SET synchronous_standby_names = 'nobody'");
        s.execute("SELECT pg_reload_conf()");
        CompletableFuture<Throwable> imported =
            attempt(() -> PostgresJournal.importLines(at, name, lines));
        // Every commit of the import waits for the standby (its tables, its epoch, its rows): each
        // wait is cancelled, as an operator clearing stuck sessions would, until the import ends.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (!imported.isDone() && System.nanoTime() < deadline) {
          s.executeQuery(
                  "SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE wait_event = 'SyncRep'")
              .close();
          Thread.sleep(20);
        }
        assertThat(imported.get(120, TimeUnit.SECONDS))
            .as("the import whose commit was not confirmed by the standby")
            .isInstanceOfSatisfying(
                JournalException.class,
                e -> {
                  assertThat(e.reason()).isEqualTo(JournalException.Reason.FAILED);
                  assertThat(e).hasMessageContaining("committed with a warning");
                });
        s.execute("ALTER SYSTEM RESET synchronous_standby_names");
        s.execute("SELECT pg_reload_conf()");
      }
    }
  }
}
