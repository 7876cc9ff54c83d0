package org.meshjava.journal.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.meshjava.journal.postgres.PostgresSchemaLockTest.at;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
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
 * batch's insert waited for as long as the DBA held it, and every serve behind the batch with them,
 * and an opening waited as long with the journal's lock taken. Each is now refused at the journal's
 * limit, typed, naming the session that holds the lock, and stores or raises nothing.
 */
class PostgresLockTimeoutTest {
  /** How long a refused statement may take here: the journal's limit, on a loaded machine. */
  private static final long REFUSED_WITHIN_SECONDS = 30;

  @BeforeAll
  static void startServer() {
    PostgresSchemaLockTest.startServer();
  }

  @Test
  void aSaveWaitingForTheSnapshotTablesLock_isRefusedIo_atTheJournalsLockTimeout_namingTheHolder()
      throws Exception {
    String database = PostgresSchemaLockTest.server.newDatabase();
    PostgresSnapshotStore store =
        PostgresSnapshotStore.of(
            at(database, PostgresTestServer.USER, DbaLock.UNBOUNDED), "did:key:a");
    store.save(PostgresSnapshotStoreTest.at(1));
    try (DbaLock dba = DbaLock.on(database, "mesh_journal_snapshot")) {
      assertThat(refusal(() -> store.save(PostgresSnapshotStoreTest.at(2))))
          .isInstanceOfSatisfying(
              SnapshotException.class,
              e -> {
                assertThat(e.reason()).isEqualTo(SnapshotException.Reason.IO);
                dba.assertNamedBy(e.getMessage());
              });
    }
    assertThat(store.latestHeader().orElseThrow().position().count()).isEqualTo(1);
  }

  @Test
  void aBatchWaitingForTheRecordTablesLock_failsTheJournal_atItsLockTimeout_storingNothing()
      throws Exception {
    String database = PostgresSchemaLockTest.server.newDatabase();
    PostgresLocation where = at(database, PostgresTestServer.USER, DbaLock.UNBOUNDED);
    String name = PostgresJournalTest.newName();
    try (PostgresJournal j = PostgresJournal.open(where, name)) {
      j.append(PostgresJournalTest.authorised(0));
      try (DbaLock dba = DbaLock.on(database, "mesh_journal_record")) {
        assertThat(refusal(() -> j.append(PostgresJournalTest.authorised(1))))
            .isInstanceOfSatisfying(
                JournalException.class,
                e -> {
                  assertThat(e.reason()).isEqualTo(JournalException.Reason.FAILED);
                  dba.assertNamedBy(e.getMessage());
                });
      }
    }
    // The refused batch left nothing, and its session let the journal's lock go at once.
    try (PostgresJournal successor = PostgresJournal.open(where, name)) {
      assertThat(successor.position().count()).isEqualTo(2);
    }
  }

  @Test
  void anOpeningWaitingForTheOwnerTablesLock_isRefusedIo_atItsLockTimeout_raisingNothing()
      throws Exception {
    String database = PostgresSchemaLockTest.server.newDatabase();
    PostgresLocation where = at(database, PostgresTestServer.USER, DbaLock.UNBOUNDED);
    String name = PostgresJournalTest.newName();
    PostgresJournal.open(where, name).close();
    try (DbaLock dba = DbaLock.on(database, "mesh_journal_owner")) {
      assertThat(refusal(() -> PostgresJournal.open(where, name).close()))
          .isInstanceOfSatisfying(
              JournalException.class,
              e -> {
                assertThat(e.reason()).isEqualTo(JournalException.Reason.IO);
                dba.assertNamedBy(e.getMessage());
              });
    }
    try (PostgresJournal j = PostgresJournal.open(where, name)) {
      assertThat(j.epoch()).as("the refused opening raised nothing").isEqualTo(2);
    }
  }

  /**
   * The heartbeat's read of the epoch, behind a DBA's lock on the owner table, is refused at the
   * same limit and fails the journal: its words name the session holding the lock as a batch's and
   * an opening's do, where they gave only the server's "canceling statement due to lock timeout".
   */
  @Test
  void aHeartbeatWaitingForTheOwnerTablesLock_failsTheJournal_namingTheHolder() throws Exception {
    String database = PostgresSchemaLockTest.server.newDatabase();
    PostgresLocation where = at(database, PostgresTestServer.USER, DbaLock.UNBOUNDED);
    try (PostgresJournal j = PostgresJournal.open(where, PostgresJournalTest.newName())) {
      j.append(PostgresJournalTest.authorised(0));
      try (DbaLock dba = DbaLock.on(database, "mesh_journal_owner")) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(REFUSED_WITHIN_SECONDS);
        while (j.refusesAppends().isEmpty() && System.nanoTime() < deadline) {
          Thread.sleep(50);
        }
        assertThat(j.refusesAppends()).as("failed by its heartbeat").isPresent();
        assertThat(j.refusesAppends().get()).contains("heartbeat");
        dba.assertNamedBy(j.refusesAppends().get());
      }
    }
  }

  /**
   * A steward's start reads its snapshot and the records after it: behind a DBA's lock on their
   * tables each read is refused {@code IO} at the journal's limit, and names the session holding
   * the lock as a save's refusal does, where it gave only "canceling statement due to lock
   * timeout".
   */
  @Test
  void theReadsOfAStart_waitingForATablesLock_areRefusedIo_namingTheHolder() throws Exception {
    String database = PostgresSchemaLockTest.server.newDatabase();
    PostgresLocation where = at(database, PostgresTestServer.USER, DbaLock.UNBOUNDED);
    PostgresSnapshotStore store = PostgresSnapshotStore.of(where, "did:key:a");
    store.save(PostgresSnapshotStoreTest.at(1));
    try (DbaLock dba = DbaLock.on(database, "mesh_journal_snapshot")) {
      for (ThrowingCallable read : new ThrowingCallable[] {store::latest, store::latestHeader}) {
        assertThat(refusal(read))
            .isInstanceOfSatisfying(
                SnapshotException.class,
                e -> {
                  assertThat(e.reason()).isEqualTo(SnapshotException.Reason.IO);
                  dba.assertNamedBy(e.getMessage());
                });
      }
    }
    try (PostgresJournal j = PostgresJournal.open(where, PostgresJournalTest.newName())) {
      j.append(PostgresJournalTest.authorised(0));
      try (DbaLock dba = DbaLock.on(database, "mesh_journal_record")) {
        assertThat(
                refusal(
                    () ->
                        j.read(
                            org.meshjava.journal.JournalPosition.GENESIS,
                            new java.util.HashMap<>(),
                            r -> {})))
            .isInstanceOfSatisfying(
                JournalException.class,
                e -> {
                  assertThat(e.reason()).isEqualTo(JournalException.Reason.IO);
                  dba.assertNamedBy(e.getMessage());
                });
      }
    }
  }

  /** What {@code call}, run on another thread, is refused with, failing where it is not soon. */
  private static Throwable refusal(ThrowingCallable call) {
    CompletableFuture<Void> running =
        CompletableFuture.runAsync(
            () -> {
              try {
                call.call();
              } catch (Throwable t) {
                throw new CompletionException(t);
              }
            });
    Throwable t = catchThrowable(() -> running.get(REFUSED_WITHIN_SECONDS, TimeUnit.SECONDS));
    assertThat(t)
        .as("refused within %d s", REFUSED_WITHIN_SECONDS)
        .isInstanceOf(ExecutionException.class);
    return t.getCause();
  }
}
