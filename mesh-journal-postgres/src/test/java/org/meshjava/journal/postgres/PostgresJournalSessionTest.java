package org.meshjava.journal.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.meshjava.journal.JournalException;

/**
 * The journal's database session over its life (SPEC.md 60.7, "Lease"): kept while the steward is
 * idle, given back by a failed open, and a lock wait that an interrupt ends.
 */
class PostgresJournalSessionTest {
  @BeforeAll
  static void startServer() {
    PostgresJournalTest.startServer();
  }

  @Test
  void anIdleJournalsSession_beforeAndAfterAnAppend_isOutsideAnyTransaction() throws Exception {
    // The heartbeat speaks every third of the lease. A session left inside a transaction between
    // its statements would show as "idle in transaction" for as long as the steward runs, holding
    // back VACUUM's cleanup of the whole database.
    String name = PostgresJournalTest.newName();
    PostgresLocation location = PostgresJournalTest.location().withLease(Duration.ofSeconds(1));
    try (PostgresJournal j = PostgresJournal.open(location, name)) {
      assertThat(j.durable()).isTrue();
      assertThat(j.locked()).isTrue();
      long pid = PostgresJournalFaultTest.backendOf(name);
      assertThat(statesOverBeats(pid, j, 2)).doesNotContain("idle in transaction");
      j.append(PostgresJournalTest.authorised(0));
      assertThat(statesOverBeats(pid, j, 2)).doesNotContain("idle in transaction");
      j.append(PostgresJournalTest.authorised(1));
      assertThat(j.refusesAppends()).isEmpty();
      assertThat(j.locked()).isTrue();
      assertThat(j.describe()).isEqualTo(name + " at " + location);
    }
    assertThat(PostgresJournalTest.rows(name)).hasSize(3);
  }

  /**
   * The states server process {@code pid} is seen in, sampled every 50 ms from now until {@code
   * journal}'s heartbeat has spoken {@code beats} whole times (a beat is over once the next one
   * begins), and once more after that: the time between the heartbeat's statements, which a session
   * left inside a transaction would spend "idle in transaction", is sampled on both sides of each.
   */
  static java.util.Set<String> statesOverBeats(long pid, PostgresJournal journal, int beats)
      throws Exception {
    java.util.Set<String> seen = new java.util.TreeSet<>();
    AtomicInteger begun = new AtomicInteger();
    journal.beforeEachBeat(begun::incrementAndGet);
    long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
    try (Connection c = PostgresJournalTest.server.connect(PostgresJournalTest.database);
        Statement s = c.createStatement()) {
      boolean last;
      do {
        last = begun.get() > beats || System.nanoTime() > deadline;
        try (ResultSet rs =
            s.executeQuery("SELECT state FROM pg_stat_activity WHERE pid = " + pid)) {
          if (rs.next()) {
            seen.add(String.valueOf(rs.getString(1)));
          }
        }
        if (!last) {
          Thread.sleep(50);
        }
      } while (!last);
    } finally {
      journal.beforeEachBeat(() -> {});
    }
    assertThat(begun.get()).as("heartbeats begun while watching").isGreaterThan(beats);
    return seen;
  }

  @Test
  void aClosedJournal_holdsNoLock_andEndsItsSession() throws Exception {
    String name = PostgresJournalTest.newName();
    // A lease longer than the wait below: the server's idle limit is not what ends the session.
    PostgresJournal j =
        PostgresJournal.open(
            PostgresJournalTest.location().withLease(Duration.ofSeconds(120)), name);
    long pid = PostgresJournalFaultTest.backendOf(name);
    j.close();
    assertThat(j.locked()).isFalse();
    assertThat(awaitNoSessions("pid = " + pid)).as("the closed journal's session").isZero();
  }

  @Test
  void anOpenTheDatabaseRefuses_leavesNoSessionBehind() throws Exception {
    // A role that may not create the tables in a database that has none yet.
    var server = PostgresJournalTest.server;
    String database = server.newDatabase();
    String role = "reader_" + Long.toHexString(System.nanoTime());
    PostgresJournalTest.sql("CREATE ROLE " + role + " LOGIN");
    try (Connection c = server.connect(database);
        Statement s = c.createStatement()) {
      s.execute("REVOKE CREATE ON SCHEMA public FROM PUBLIC");
    }
    PostgresLocation asRole =
        PostgresLocation.parse(
            "postgresql://"
                + role
                + "@127.0.0.1:"
                + server.port()
                + "/"
                + database
                // Longer than the wait below: a session the open left behind is not ended by the
                // server's idle limit before the wait is over.
                + "?lease_ms=120000");
    assertThatThrownBy(() -> PostgresJournal.open(asRole, "did:key:z").close())
        .isInstanceOfSatisfying(
            JournalException.class,
            e -> assertThat(e.reason()).isEqualTo(JournalException.Reason.IO));
    assertThat(awaitNoSessions("usename = '" + role + "'"))
        .as("sessions of %s left by the failed open", role)
        .isZero();
  }

  /**
   * The sessions matching {@code condition} once none is left or 20 s have passed: the server ends
   * a closed session a moment after the client closes it.
   */
  static long awaitNoSessions(String condition) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
    long sessions;
    do {
      sessions = sessionsWhere(condition);
    } while (sessions > 0 && System.nanoTime() < deadline && sleep());
    return sessions;
  }

  static boolean sleep() throws InterruptedException {
    Thread.sleep(50);
    return true;
  }

  static long sessionsWhere(String condition) throws Exception {
    try (Connection c = PostgresJournalTest.server.connect("postgres");
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT count(*) FROM pg_stat_activity WHERE " + condition)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  @Test
  void aLockWaitEndedByAnInterrupt_isRefusedLocked_andKeepsTheInterrupt() throws Exception {
    String name = PostgresJournalTest.newName();
    try (PostgresJournal holder = PostgresJournal.open(PostgresJournalTest.location(), name)) {
      PostgresLocation patient =
          PostgresJournalTest.location().withLockWait(Duration.ofSeconds(30));
      Thread.currentThread().interrupt();
      try {
        assertThatThrownBy(() -> PostgresJournal.open(patient, name))
            .isInstanceOfSatisfying(
                JournalException.class,
                e -> {
                  assertThat(e.reason()).isEqualTo(JournalException.Reason.LOCKED);
                  assertThat(e.getMessage()).contains("interrupted while waiting for journal");
                });
        assertThat(Thread.currentThread().isInterrupted()).as("the interrupt is kept").isTrue();
      } finally {
        Thread.interrupted();
      }
      assertThat(holder.locked()).isTrue();
    }
  }
}
