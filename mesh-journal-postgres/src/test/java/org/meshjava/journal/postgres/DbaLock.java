package org.meshjava.journal.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * A DBA's session holding a lock on one of the journal's tables in an open transaction, let go when
 * closed: the lock tests' holder.
 */
record DbaLock(Connection session, String table, long pid) implements AutoCloseable {
  /**
   * The journal's limit on a wait for a lock in the lock tests, the least a URL may set: each
   * refusal waits it out, so a longer one only made the tests slower.
   */
  static final long LOCK_TIMEOUT_MS = PostgresLocation.MIN_LOCK_TIMEOUT_MS;

  /**
   * URL parameters under which nothing but the journal's {@code lock_timeout} ({@link
   * #LOCK_TIMEOUT_MS}) bounds a wait: the driver's socket timeout is lifted.
   */
  static final String UNBOUNDED =
      "?lease_ms=2000&lock_timeout_ms=" + LOCK_TIMEOUT_MS + "&socketTimeout=0";

  /**
   * Holds {@code table}'s strongest lock ({@code ACCESS EXCLUSIVE}), which every statement waits
   * for.
   */
  static DbaLock on(String database, String table) throws SQLException {
    return in(database, table, "ACCESS EXCLUSIVE");
  }

  /** Holds {@code table} in lock mode {@code mode} ({@code ACCESS SHARE}, a reader's). */
  static DbaLock in(String database, String table, String mode) throws SQLException {
    Connection c = PostgresSchemaLockTest.server.connect(database);
    try (Statement s = c.createStatement()) {
      c.setAutoCommit(false);
      long pid;
      try (ResultSet rs = s.executeQuery("SELECT pg_backend_pid()")) {
        rs.next();
        pid = rs.getLong(1);
      }
      s.execute("LOCK TABLE " + table + " IN " + mode + " MODE");
      return new DbaLock(c, table, pid);
    } catch (SQLException e) {
      c.close();
      throw e;
    }
  }

  /** Checks that {@code refusal} names the table, the journal's limit and this session. */
  void assertNamedBy(String refusal) {
    assertThat(refusal)
        .contains(table)
        .contains("lock_timeout_ms=" + LOCK_TIMEOUT_MS)
        .contains("pid " + pid)
        .contains("pg_terminate_backend(" + pid + ")");
  }

  @Override
  public void close() throws SQLException {
    session.rollback();
    session.close();
  }
}
