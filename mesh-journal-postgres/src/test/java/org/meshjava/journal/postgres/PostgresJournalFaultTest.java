package org.meshjava.journal.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.meshjava.journal.postgres.PostgresJournalTest.authorised;
import static org.meshjava.journal.postgres.PostgresJournalTest.database;
import static org.meshjava.journal.postgres.PostgresJournalTest.location;
import static org.meshjava.journal.postgres.PostgresJournalTest.newName;
import static org.meshjava.journal.postgres.PostgresJournalTest.rows;
import static org.meshjava.journal.postgres.PostgresJournalTest.server;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.meshjava.core.ContentId;
import org.meshjava.journal.Journal;
import org.meshjava.journal.JournalEntry;
import org.meshjava.journal.JournalException;

/**
 * The PostgreSQL journal when its session dies or stops answering in the middle of a batch: every
 * waiter of the batch is refused, the journal stays failed and says so before any work is done
 * ({@link Journal#refusesAppends()}), nothing refused is found after a reopen, and a successor
 * takes the journal over.
 */
class PostgresJournalFaultTest {
  /** Long enough for any healthy statement on a loaded test machine; a hang runs past it. */
  static final long GUARD_SECONDS = 120;

  @BeforeAll
  static void startServer() {
    PostgresJournalTest.startServer();
  }

  /** The server process of the session that holds journal {@code name}'s lock. */
  static long backendOf(String name) throws Exception {
    try (Connection c = server.connect(database);
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND objid = "
                    + (JournalSchema.lockKey("mesh-journal " + name) & 0xffffffffL))) {
      assertThat(rs.next()).as("a session holds the lock of %s", name).isTrue();
      return rs.getLong(1);
    }
  }

  /** Waits until server process {@code pid} waits for a lock: its insert is in progress. */
  static void awaitWaitingForALock(long pid) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(GUARD_SECONDS);
    while (System.nanoTime() < deadline) {
      try (Connection c = server.connect(database);
          Statement s = c.createStatement();
          ResultSet rs =
              s.executeQuery("SELECT wait_event_type FROM pg_stat_activity WHERE pid = " + pid)) {
        if (rs.next() && "Lock".equals(rs.getString(1))) {
          return;
        }
      }
      Thread.sleep(20);
    }
    throw new AssertionError("server process " + pid + " never waited for a lock");
  }

  /**
   * Holds journal {@code name}'s owner row in an open transaction on {@code blocker}, so that a
   * batch's insert (its {@code FOR SHARE} fence) waits in the middle of its statement until {@code
   * blocker} ends the transaction.
   */
  static void holdOwnerRow(Connection blocker, String name) throws Exception {
    blocker.setAutoCommit(false);
    try (Statement s = blocker.createStatement()) {
      s.execute("SELECT 1 FROM mesh_journal_owner WHERE journal = '" + name + "' FOR UPDATE");
    }
  }

  /** Enqueues {@code n} records and awaits each on a thread of its own: one batch's waiters. */
  static List<Future<?>> waiters(ExecutorService pool, PostgresJournal j, int first, int n)
      throws Exception {
    List<Future<?>> out = new ArrayList<>();
    for (int i = first; i < first + n; i++) {
      Journal.Pending p = j.enqueue(authorised(i));
      out.add(
          pool.submit(
              () -> {
                p.await();
                return null;
              }));
    }
    return out;
  }

  static void assertEachRefused(List<Future<?>> waiters) throws Exception {
    for (Future<?> w : waiters) {
      try {
        w.get(GUARD_SECONDS, TimeUnit.SECONDS);
        throw new AssertionError("a waiter of the failed batch was acknowledged");
      } catch (java.util.concurrent.ExecutionException e) {
        assertThat(e.getCause())
            .isInstanceOfSatisfying(
                JournalException.class,
                f -> assertThat(f.reason()).isEqualTo(JournalException.Reason.FAILED));
      }
    }
  }

  @Test
  void sessionKilledDuringABatch_refusesEveryWaiter_staysFailed_andNothingOfItIsFound()
      throws Exception {
    String name = newName();
    ExecutorService pool = Executors.newCachedThreadPool();
    try (PostgresJournal j = PostgresJournal.open(location(), name);
        Connection blocker = server.connect(database)) {
      j.append(new JournalEntry.Sealed(0, ContentId.ofBytes(new byte[] {0})));
      long pid = backendOf(name);
      holdOwnerRow(blocker, name);
      List<Future<?>> batch = waiters(pool, j, 1, 3);
      awaitWaitingForALock(pid);
      try (Connection c = server.connect(database);
          Statement s = c.createStatement()) {
        s.execute("SELECT pg_terminate_backend(" + pid + ")");
      }
      blocker.rollback();

      assertEachRefused(batch);
      assertThat(j.refusesAppends()).hasValueSatisfying(why -> assertThat(why).contains(name));
      assertThat(j.locked()).isFalse();
    } finally {
      pool.shutdownNow();
    }
    try (PostgresJournal reopened = PostgresJournal.open(location(), name)) {
      assertThat(reopened.recovered()).hasSize(1);
    }
    assertThat(rows(name)).hasSize(1);
  }

  /**
   * {@code pg_cancel_backend} on the heartbeat's epoch check ends the statement, not the session:
   * the journal still fails (the check did not run), but its words said it "lost its database
   * session", sending the operator after a connection that was never lost.
   */
  @Test
  void heartbeatStatementCancelled_failsTheJournal_sayingItWasCancelled_notTheSessionLost()
      throws Exception {
    String name = newName();
    try (PostgresJournal j =
            PostgresJournal.open(location().withLease(Duration.ofSeconds(3)), name);
        Connection blocker = server.connect(database)) {
      j.append(new JournalEntry.Sealed(0, ContentId.ofBytes(new byte[] {0})));
      long pid = backendOf(name);
      // The heartbeat's SELECT of the owner row waits behind this lock until it is cancelled.
      blocker.setAutoCommit(false);
      try (Statement s = blocker.createStatement()) {
        s.execute("LOCK TABLE mesh_journal_owner IN ACCESS EXCLUSIVE MODE");
      }
      awaitWaitingForALock(pid);
      try (Connection c = server.connect(database);
          Statement s = c.createStatement()) {
        s.execute("SELECT pg_cancel_backend(" + pid + ")");
      }
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(GUARD_SECONDS);
      while (j.refusesAppends().isEmpty() && System.nanoTime() < deadline) {
        Thread.sleep(20);
      }
      blocker.rollback();
      assertThat(j.refusesAppends())
          .hasValueSatisfying(
              why ->
                  assertThat(why)
                      .contains(name)
                      .contains("cancelled")
                      .doesNotContain("lost its database session"));
    }
  }

  @Test
  void sessionThatStopsAnsweringDuringABatch_failsTheJournal_andASuccessorTakesOver()
      throws Exception {
    // A partition, or a database machine that froze: nothing closes the socket, so only the
    // journal's own limit ends the wait. Without one the batch's waiters, the heartbeat and close()
    // waited for ever, and refusesAppends() said nothing, so serves kept coming and kept waiting.
    String name = newName();
    ExecutorService pool = Executors.newCachedThreadPool();
    PostgresLocation at = location().withLease(Duration.ofSeconds(1));
    long pid;
    try (PostgresJournal j = PostgresJournal.open(at, name)) {
      j.append(new JournalEntry.Sealed(0, ContentId.ofBytes(new byte[] {0})));
      pid = backendOf(name);
      signal("STOP", pid);
      try {
        List<Future<?>> batch = waiters(pool, j, 1, 3);
        assertEachRefused(batch);
        assertThat(j.refusesAppends()).isPresent();
      } finally {
        signal("CONT", pid);
      }
    } finally {
      pool.shutdownNow();
    }
    try (PostgresJournal successor =
        PostgresJournal.open(location().withLockWait(Duration.ofSeconds(GUARD_SECONDS)), name)) {
      assertThat(successor.recovered()).hasSize(1);
    }
  }

  @Test
  void batchStillRunningWhenTheJournalGivesUp_isNeverCommitted() throws Exception {
    // The insert waits on the server past the journal's limit (a lock, a slow disk): the journal
    // refuses the batch's waiters and drops the session. Sent as a statement of its own, the insert
    // then finished and committed on the server, so records refused NOT_RECORDED were found by the
    // next steward; in a transaction whose COMMIT was never sent, the server rolls it back.
    String name = newName();
    ExecutorService pool = Executors.newCachedThreadPool();
    PostgresLocation at = location().withLease(Duration.ofSeconds(1));
    try (Connection blocker = server.connect(database)) {
      try (PostgresJournal j = PostgresJournal.open(at, name)) {
        j.append(new JournalEntry.Sealed(0, ContentId.ofBytes(new byte[] {0})));
        long pid = backendOf(name);
        holdOwnerRow(blocker, name);
        List<Future<?>> batch = waiters(pool, j, 1, 3);
        awaitWaitingForALock(pid);
        assertEachRefused(batch);
        assertThat(j.refusesAppends()).isPresent();
      } finally {
        // The insert, still waiting on the server, goes on.
        blocker.rollback();
        pool.shutdownNow();
      }
    }
    try (PostgresJournal successor =
        PostgresJournal.open(location().withLockWait(Duration.ofSeconds(GUARD_SECONDS)), name)) {
      assertThat(successor.recovered()).hasSize(1);
    }
    assertThat(rows(name)).hasSize(1);
  }

  static void signal(String signal, long pid) throws Exception {
    Process p = new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).inheritIO().start();
    assertThat(p.waitFor()).as("kill -%s %d", signal, pid).isZero();
  }
}
