package org.meshjava.journal.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.meshjava.journal.postgres.PostgresJournalTest.authorised;
import static org.meshjava.journal.postgres.PostgresJournalTest.database;
import static org.meshjava.journal.postgres.PostgresJournalTest.location;
import static org.meshjava.journal.postgres.PostgresJournalTest.newName;
import static org.meshjava.journal.postgres.PostgresJournalTest.rows;
import static org.meshjava.journal.postgres.PostgresJournalTest.server;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.meshjava.journal.JournalException;

/**
 * The journal's session ended by {@code pg_terminate_backend} (as an operator clearing sessions, or
 * a server's fast shutdown, ends it) just before each statement of the opening and of an append, in
 * turn (SPEC.md 60.7, "Faults"): each ends in a typed refusal that quotes the server's reason, the
 * lock is free again at once, and nothing refused is stored.
 */
class PostgresTerminatedSessionTest {
  /** What the server says to a session {@code pg_terminate_backend} ended. */
  static final String TERMINATED = "terminating connection due to administrator command";

  @BeforeAll
  static void startServer() {
    PostgresJournalTest.startServer();
  }

  /**
   * Counts the statements (and commits) the test's thread runs on a session, and has the server end
   * the session just before the {@code n}th: the statement then meets a session already gone. The
   * heartbeat's statements, on its own thread, are not counted.
   */
  static final class Terminator {
    private int n;
    private final Thread counted = Thread.currentThread();
    private int seen;
    private boolean fired;
    private long pid;

    Terminator(int n) {
      this.n = n;
    }

    /** Counts on, but ends nothing any more. */
    void disarm() {
      n = 0;
    }

    Connection wrap(Connection real) throws SQLException {
      try (Statement s = real.createStatement();
          ResultSet rs = s.executeQuery("SELECT pg_backend_pid()")) {
        rs.next();
        pid = rs.getLong(1);
      }
      return proxy(
          Connection.class,
          real,
          (m, args) -> {
            if ((m.getName().equals("commit") || m.getName().equals("rollback")) && args == null) {
              before();
            }
          });
    }

    private <T> T proxy(Class<T> type, Object real, Before hook) {
      return type.cast(
          Proxy.newProxyInstance(
              type.getClassLoader(),
              new Class<?>[] {type},
              (p, m, args) -> {
                hook.run(m, args);
                Object r = invoke(m, real, args);
                if (r instanceof Statement st
                    && Statement.class.isAssignableFrom(m.getReturnType())) {
                  return proxy(m.getReturnType(), st, this::beforeExecute);
                }
                return r;
              }));
    }

    private void beforeExecute(Method m, Object[] args) throws Exception {
      if (EXECUTES.contains(m.getName())) {
        before();
      }
    }

    private void before() throws Exception {
      if (Thread.currentThread() != counted || ++seen != n) {
        return;
      }
      fired = true;
      try (Connection c = server.connect(database);
          Statement s = c.createStatement()) {
        s.execute("SELECT pg_terminate_backend(" + pid + ")");
        long deadline =
            System.nanoTime() + TimeUnit.SECONDS.toNanos(PostgresJournalFaultTest.GUARD_SECONDS);
        while (System.nanoTime() < deadline) {
          try (ResultSet rs =
              s.executeQuery("SELECT count(*) FROM pg_stat_activity WHERE pid = " + pid)) {
            rs.next();
            if (rs.getLong(1) == 0) {
              return;
            }
          }
          Thread.sleep(10);
        }
      }
      throw new AssertionError("server process " + pid + " did not end");
    }

    private static Object invoke(Method m, Object target, Object[] args) throws Throwable {
      try {
        return m.invoke(target, args);
      } catch (InvocationTargetException e) {
        throw e.getCause();
      }
    }
  }

  private static final Set<String> EXECUTES =
      Set.of("execute", "executeQuery", "executeUpdate", "executeLargeUpdate", "executeBatch");

  @FunctionalInterface
  interface Before {
    void run(Method m, Object[] args) throws Exception;
  }

  static PostgresJournal open(String name, Terminator t) throws JournalException {
    return PostgresJournal.open(location(), name, () -> {}, t::wrap);
  }

  @Test
  void aSessionEndedBeforeEachStatementOfTheOpening_isRefusedIo_inTheServersWords()
      throws Exception {
    String name = newName();
    try (PostgresJournal j = PostgresJournal.open(location(), name)) {
      j.append(authorised(0));
      j.append(authorised(1));
    }
    List<String> refusals = new ArrayList<>();
    for (int n = 1; ; n++) {
      Terminator t = new Terminator(n);
      Throwable thrown =
          catchThrowable(
              () -> {
                PostgresJournal opened = open(name, t);
                t.disarm();
                opened.close();
              });
      if (!t.fired) {
        assertThat(thrown).as("the opening ran fewer than %s statements", n).isNull();
        break;
      }
      assertThat(thrown).as("ended before statement %s", n).isInstanceOf(JournalException.class);
      JournalException e = (JournalException) thrown;
      refusals.add(n + ": " + e.getMessage());
      assertThat(e.reason()).as(e.getMessage()).isEqualTo(JournalException.Reason.IO);
      assertThat(e.getMessage()).as("statement %s", n).contains(TERMINATED);
    }
    assertThat(refusals).as("statements of the opening").hasSizeGreaterThan(8);
    try (PostgresJournal j = PostgresJournal.open(location(), name)) {
      assertThat(j.position().count()).isEqualTo(3);
    }
    assertThat(rows(name)).hasSize(3);
  }

  @Test
  void aSessionEndedBeforeEachStatementOfAnAppend_failsTheJournal_andStoresNothingOfIt()
      throws Exception {
    String name = newName();
    Terminator counting = new Terminator(Integer.MAX_VALUE);
    try (PostgresJournal j = open(name, counting)) {
      j.append(authorised(0));
    }
    for (int k = 1; ; k++) {
      Terminator t = new Terminator(Integer.MAX_VALUE);
      open(name, t).close();
      // Its close released the lock: one statement after the opening's.
      int opening = t.seen - 1;
      Terminator ending = new Terminator(opening + k);
      int record = k;
      try (PostgresJournal j = open(name, ending)) {
        Throwable thrown = catchThrowable(() -> j.append(authorised(record)));
        if (!ending.fired) {
          assertThat(thrown).as("the append ran fewer than %s statements", k).isNull();
          break;
        }
        assertThat(thrown).as("ended before statement %s", k).isInstanceOf(JournalException.class);
        JournalException e = (JournalException) thrown;
        assertThat(e.reason()).as(e.getMessage()).isEqualTo(JournalException.Reason.FAILED);
        assertThat(e.getMessage()).as("statement %s", k).contains(TERMINATED);
        assertThat(j.refusesAppends()).isPresent();
      }
      assertThat(rows(name)).as("nothing of the refused append").hasSize(2);
    }
    try (PostgresJournal j = PostgresJournal.open(location(), name)) {
      assertThat(j.position().count()).isEqualTo(3);
    }
  }
}
