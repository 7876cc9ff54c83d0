package org.meshjava.journal.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.time.Duration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.meshjava.journal.JournalException;

/**
 * A pooling proxy in transaction mode between the steward and the database (SPEC.md 60.7, "Lease"):
 * the journal's lock, idle limit and pinned path are its session's, and such a proxy runs each
 * transaction on whichever server connection is free. The lock then stays with a connection the
 * steward no longer speaks on, held after the steward stops. Where two statements are seen to reach
 * two server processes, opening is refused, and a running journal fails at its next heartbeat, each
 * naming the pooling; played here by {@link TransactionPool}, since no PgBouncer is at hand.
 */
class PostgresTransactionPoolingTest {
  @BeforeAll
  static void startServer() {
    PostgresJournalTest.startServer();
  }

  @Test
  void anOpeningWhoseStatementsTwoSessionsAnswer_isRefusedUnlockable_andRaisesNothing()
      throws Exception {
    String name = PostgresJournalTest.newName();
    PostgresLocation location = PostgresJournalTest.location();
    try (PostgresJournal j = PostgresJournal.open(location, name)) {
      j.append(PostgresJournalTest.authorised(0));
    }
    JournalException e =
        catchThrowableOfType(
            JournalException.class,
            () ->
                PostgresJournal.open(
                        location,
                        name,
                        () -> {},
                        c -> TransactionPool.over(c, location).switching(true).connection())
                    .close());
    assertThat(e).isNotNull();
    assertThat(e.reason()).as(e.getMessage()).isEqualTo(JournalException.Reason.UNLOCKABLE);
    assertThat(e.getMessage()).contains("pool_mode=transaction").contains("pg_terminate_backend(");
    try (PostgresJournal j = PostgresJournal.open(location, name)) {
      assertThat(j.epoch()).as("the refused opening raised nothing").isEqualTo(2);
      assertThat(j.position().count()).isEqualTo(2);
    }
  }

  @Test
  void aSessionThatChangesUnderAnOpenJournal_failsItAtTheNextHeartbeat() throws Exception {
    String name = PostgresJournalTest.newName();
    PostgresLocation location = PostgresJournalTest.location().withLease(Duration.ofSeconds(1));
    TransactionPool[] pool = new TransactionPool[1];
    try (PostgresJournal j =
        PostgresJournal.open(
            location,
            name,
            () -> {},
            c -> {
              pool[0] = TransactionPool.over(c, location);
              return pool[0].connection();
            })) {
      j.append(PostgresJournalTest.authorised(0));
      pool[0].switching(true);
      long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
      while (j.refusesAppends().isEmpty() && System.nanoTime() < deadline) {
        Thread.sleep(20);
      }
      assertThat(j.refusesAppends()).isPresent();
      assertThat(j.refusesAppends().get())
          .contains("cannot tell that it still holds its lock")
          .contains("pool_mode=transaction");
      assertThat(j.locked()).isFalse();
    }
  }
}
