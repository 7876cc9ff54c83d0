package org.meshjava.journal.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.meshjava.journal.JournalException;

/**
 * A LOCKED refusal names the session holding the journal's lock with what the server shows of it
 * (SPEC.md 60.7): all of it to a role that may see other sessions, and only the pid, with no "null"
 * in its place, to one that may not.
 */
class PostgresLockHolderTest {
  @BeforeAll
  static void startServer() {
    PostgresJournalTest.startServer();
  }

  /** A session that took journal {@code name}'s lock and then sits idle, as a stopped steward's. */
  static Connection idleHolder(String name) throws Exception {
    Connection holder = PostgresJournalTest.server.connect(PostgresJournalTest.database);
    assertThat(JournalSchema.tryLock(holder, PostgresJournalTest.PUBLIC, name)).isTrue();
    return holder;
  }

  static long pidOf(Connection c) throws Exception {
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT pg_backend_pid()")) {
      rs.next();
      return rs.getLong(1);
    }
  }

  static JournalException lockedOpen(PostgresLocation location, String name) {
    Throwable t = catchThrowable(() -> PostgresJournal.open(location, name).close());
    assertThat(t).isInstanceOf(JournalException.class);
    JournalException e = (JournalException) t;
    assertThat(e.reason()).as(e.getMessage()).isEqualTo(JournalException.Reason.LOCKED);
    return e;
  }

  @Test
  void aRoleThatSeesOtherSessions_isToldWhereTheHolderConnectedFrom_since_andWhatItIsDoing()
      throws Exception {
    String name = PostgresJournalTest.newName();
    try (Connection holder = idleHolder(name)) {
      long pid = pidOf(holder);
      JournalException e = lockedOpen(PostgresJournalTest.location(), name);
      assertThat(e.getMessage())
          .containsPattern(
              "lock: pid "
                  + pid
                  + " from 127\\.0\\.0\\.1, connected since \\d{4}-\\d\\d-\\d\\d [^,)]+,"
                  + " idle, waiting on ClientRead\\)")
          .endsWith("pg_terminate_backend(" + pid + ")");
    }
  }

  @Test
  void aRoleThatMayNotSeeOtherSessions_isToldOnlyThePid() throws Exception {
    String name = PostgresJournalTest.newName();
    String role = "steward_" + Long.toHexString(System.nanoTime());
    PostgresJournalTest.sql("CREATE ROLE " + role + " LOGIN");
    // Enough to open a journal whose tables exist; nothing that shows other sessions.
    PostgresJournalTest.sql("GRANT USAGE, CREATE ON SCHEMA public TO " + role);
    PostgresLocation asRole =
        PostgresLocation.parse(
            "postgresql://"
                + role
                + "@127.0.0.1:"
                + PostgresJournalTest.server.port()
                + "/"
                + PostgresJournalTest.database);
    try (PostgresJournal created = PostgresJournal.open(PostgresJournalTest.location(), name)) {
      // the tables now exist
    }
    try (Connection holder = idleHolder(name)) {
      long pid = pidOf(holder);
      JournalException e = lockedOpen(asRole, name);
      assertThat(e.getMessage())
          .contains("(its database session holds the journal's lock: pid " + pid + ").")
          .doesNotContain("null");
    }
  }
}
