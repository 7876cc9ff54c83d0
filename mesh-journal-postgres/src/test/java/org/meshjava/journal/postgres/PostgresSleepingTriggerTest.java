package org.meshjava.journal.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.meshjava.journal.JournalException;
import org.meshjava.testpg.PostgresTestServer;

/**
 * The journal's statements run under a {@code statement_timeout} of its own where a role or the
 * database gives none (SPEC.md 60.7, "Faults"): with none, a trigger on the records that slept held
 * a batch, and every serve queued behind it, until the driver's socket timeout gave up, and for
 * ever where the URL lifted that ({@code socketTimeout=0}).
 */
class PostgresSleepingTriggerTest {
  @Test
  void aTriggerThatSleeps_underNoSocketTimeout_isCancelledAtTheStatementLimit() throws Exception {
    PostgresTestServer server = PostgresTestServer.shared();
    String database = server.newDatabase();
    // The lock timeout half the lease (500 ms), the statement limit midway to the lease (750 ms).
    PostgresLocation where =
        PostgresLocation.parse(server.url(database) + "?lease_ms=1000&socketTimeout=0");
    assertThat(where.statementTimeout()).isEqualTo(Duration.ofMillis(750));
    try (PostgresJournal j = PostgresJournal.open(where, PostgresJournalTest.newName())) {
      try (Connection c = server.connect(database);
          Statement s = c.createStatement()) {
        // Longer than the test waits for the refusal: without the limit the batch is stored.
        s.execute(
            "CREATE FUNCTION sleepy() RETURNS trigger LANGUAGE plpgsql AS"
                + " $$ BEGIN PERFORM pg_sleep(5); RETURN NEW; END $$");
        s.execute(
            "CREATE TRIGGER sleepy BEFORE INSERT ON mesh_journal_record"
                + " FOR EACH ROW EXECUTE FUNCTION sleepy()");
      }
      long start = System.nanoTime();
      JournalException e =
          catchThrowableOfType(
              JournalException.class, () -> j.append(PostgresJournalTest.authorised(0)));
      Duration took = Duration.ofNanos(System.nanoTime() - start);
      assertThat(e).as("the batch behind the sleeping trigger").isNotNull();
      assertThat(e.reason()).as(e.getMessage()).isEqualTo(JournalException.Reason.FAILED);
      assertThat(e.getMessage()).contains("statement timeout");
      assertThat(took).isLessThan(Duration.ofSeconds(4));
    }
  }

  @Test
  void aStatementLimitTheLockTimeoutOrTheLeaseWouldOutrun_isRefusedAtParsing() {
    // At the lock timeout or below, a lock's wait is cancelled as overlong, naming no holder; at
    // the lease or above the driver's socket timeout gives up first.
    for (String limit : new String[] {"500", "1000", "-1"}) {
      assertThatThrownBy(
              () ->
                  PostgresLocation.parse(
                      "postgresql://h/d?lease_ms=1000&statement_timeout_ms=" + limit))
          .as(limit)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("statement_timeout_ms must be 0 (none), or more than");
    }
    assertThat(
            PostgresLocation.parse("postgresql://h/d?lease_ms=1000&statement_timeout_ms=0")
                .statementTimeout())
        .isZero();
    assertThat(
            PostgresLocation.parse("postgresql://h/d?lease_ms=1000&statement_timeout_ms=900")
                .statementTimeout())
        .isEqualTo(Duration.ofMillis(900));
  }

  @Test
  void aSocketTimeoutShorterThanTheLease_boundsTheStatementLimitToo() {
    // The default lease (10 s) and lock timeout (5 s) under a 6 s socket timeout: a limit midway to
    // the lease (7.5 s) let the driver give up on a sleeping trigger's batch first, as a lost
    // connection, and raised a DBA's 5.9 s limit past the socket timeout.
    assertThat(PostgresLocation.parse("postgresql://h/d?socketTimeout=6").statementTimeout())
        .isEqualTo(Duration.ofMillis(5500));
    for (String limit : new String[] {"6000", "7000"}) {
      assertThatThrownBy(
              () ->
                  PostgresLocation.parse(
                      "postgresql://h/d?socketTimeout=6&statement_timeout_ms=" + limit))
          .as(limit)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("statement_timeout_ms must be 0 (none), or more than")
          .hasMessageContaining("socketTimeout (6000 ms)");
    }
    assertThat(
            PostgresLocation.parse("postgresql://h/d?socketTimeout=6&statement_timeout_ms=5999")
                .statementTimeout())
        .isEqualTo(Duration.ofMillis(5999));
    // None, or one past the lease, leaves the lease the bound.
    for (String socket : new String[] {"0", "11", "2147483647"}) {
      assertThat(
              PostgresLocation.parse("postgresql://h/d?socketTimeout=" + socket).statementTimeout())
          .as(socket)
          .isEqualTo(Duration.ofMillis(7500));
    }
  }
}
