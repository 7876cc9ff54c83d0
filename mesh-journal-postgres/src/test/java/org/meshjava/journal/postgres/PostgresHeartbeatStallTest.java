package org.meshjava.journal.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.meshjava.journal.JournalException;

/**
 * A heartbeat that comes late (a GC pause, a starved thread on a loaded machine) fails closed
 * (SPEC.md 60.7, "Lease"): the server ends the silent session after the lease, which lets a
 * successor take the lock, and the stalled journal's next append is refused, its record stored
 * nowhere. The stall is made by blocking the heartbeat's thread, not by racing its timer.
 */
class PostgresHeartbeatStallTest {
  @BeforeAll
  static void startServer() {
    PostgresJournalTest.startServer();
  }

  @Test
  void aStalledHeartbeat_losesTheSession_andTheStaleStewardsNextAppendIsRefused_notStored()
      throws Exception {
    String name = PostgresJournalTest.newName();
    PostgresLocation leased = PostgresJournalTest.location().withLease(Duration.ofSeconds(1));
    CountDownLatch stalled = new CountDownLatch(1);
    CountDownLatch resume = new CountDownLatch(1);
    try (PostgresJournal stale = PostgresJournal.open(leased, name)) {
      stale.append(PostgresJournalTest.authorised(0));
      stale.beforeEachBeat(
          () -> {
            stalled.countDown();
            try {
              resume.await();
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          });
      assertThat(stalled.await(PostgresJournalFaultTest.GUARD_SECONDS, TimeUnit.SECONDS)).isTrue();

      // The server ends the silent session after its lease; until then this waits for the lock.
      try (PostgresJournal successor =
          PostgresJournal.open(
              leased.withLockWait(Duration.ofSeconds(PostgresJournalFaultTest.GUARD_SECONDS)),
              name)) {
        assertThat(successor.epoch()).isEqualTo(2);
        assertThat(successor.position().count()).isEqualTo(2);
        successor.append(PostgresJournalTest.authorised(1));

        // The stale steward still believes it holds the journal, and tries to write after it.
        Throwable refused = catchThrowable(() -> stale.append(PostgresJournalTest.authorised(2)));
        assertThat(refused).isInstanceOf(JournalException.class);
        JournalException e = (JournalException) refused;
        assertThat(e.reason())
            .as(e.getMessage())
            .isIn(JournalException.Reason.FAILED, JournalException.Reason.FENCED);
        assertThat(e.getMessage()).doesNotContain("may still be found on restart");
        assertThat(stale.refusesAppends()).isPresent();
        assertThat(stale.locked()).isFalse();

        successor.append(PostgresJournalTest.authorised(3));
        assertThat(successor.position().count()).isEqualTo(4);
      } finally {
        resume.countDown();
      }
    }
    // One chain: the stale steward's first record, then the successor's two; nothing of the
    // refused append, nothing twice.
    try (PostgresJournal reopened = PostgresJournal.open(PostgresJournalTest.location(), name)) {
      assertThat(reopened.position().count()).isEqualTo(4);
      assertThat(reopened.epoch()).isEqualTo(3);
    }
    assertThat(PostgresJournalTest.rows(name)).hasSize(4);
  }
}
