package org.meshjava.journal.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.meshjava.journal.postgres.PostgresSchemaLockTest.at;
import static org.meshjava.journal.postgres.PostgresSchemaLockTest.sql;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.meshjava.journal.JournalException;
import org.meshjava.journal.JournalPosition;
import org.meshjava.journal.JournalRecord;
import org.meshjava.testpg.PostgresTestServer;

/**
 * Settings a DBA gives the database or the role, under the journal (SPEC.md 60.7, "Faults"): each
 * either leaves the journal working or ends in a typed refusal in words that name it.
 */
class PostgresDbaSettingsTest {
  static final String USER = PostgresTestServer.USER;

  @BeforeAll
  static void startServer() {
    PostgresSchemaLockTest.startServer();
  }

  @Test
  void aReadOnlyDatabase_isRefusedIo_namingIt_whileItsJournalStillReads() throws Exception {
    String database = PostgresSchemaLockTest.server.newDatabase();
    String name = PostgresJournalTest.newName();
    try (PostgresJournal j = PostgresJournal.open(at(database, USER, ""), name)) {
      j.append(PostgresJournalTest.authorised(0));
    }
    // As a hot standby's URL, or a replica's role, would have it.
    PostgresLocation readOnly =
        at(database, USER, "?options=-c%20default_transaction_read_only%3Don");
    assertThatThrownBy(() -> PostgresJournal.open(readOnly, name))
        .isInstanceOfSatisfying(
            JournalException.class,
            e -> {
              assertThat(e.reason()).isEqualTo(JournalException.Reason.IO);
              assertThat(e.getMessage()).contains("read-only transaction");
            });
    assertThat(PostgresJournal.readLines(readOnly, name)).hasSize(2);
  }

  /**
   * A DBA's statement_timeout shorter than the journal's lock timeout was raised only to half the
   * lease, the lock timeout itself, and cancelled the raise's wait first: refused "statement
   * timeout", naming neither the lock nor its holder. It is raised above the lock timeout now
   * (statement_timeout_ms, midway to the lease), and the refusal names the session to end.
   */
  @Test
  void aStatementTimeoutShorterThanAnOpeningsWait_isRaised_andTheRefusalNamesTheHolder()
      throws Exception {
    String database = PostgresSchemaLockTest.server.newDatabase();
    String name = PostgresJournalTest.newName();
    PostgresLocation where = at(database, USER, "?lease_ms=1000");
    PostgresJournal.open(where, name).close();
    sql(database, "ALTER DATABASE " + database + " SET statement_timeout = '300ms'");
    try (Connection blocker = PostgresSchemaLockTest.server.connect(database);
        Statement s = blocker.createStatement()) {
      // The opening's raise of the epoch waits for this row, longer than the DBA allows.
      blocker.setAutoCommit(false);
      s.execute("SELECT * FROM mesh_journal_owner FOR UPDATE");
      assertThatThrownBy(() -> PostgresJournal.open(where, name))
          .isInstanceOfSatisfying(
              JournalException.class,
              e -> {
                assertThat(e.reason()).isEqualTo(JournalException.Reason.IO);
                assertThat(e.getMessage())
                    .contains("waited lock_timeout_ms=500")
                    .contains("pg_terminate_backend(")
                    .doesNotContain("statement timeout");
              });
      blocker.rollback();
    }
    try (PostgresJournal j = PostgresJournal.open(where, name)) {
      assertThat(j.epoch()).as("the cancelled raise left nothing").isEqualTo(2);
    }
  }

  @Test
  void aRolesStatementTimeoutTunedForQueries_doesNotFailTheJournalsBatches() throws Exception {
    String database = PostgresSchemaLockTest.server.newDatabase();
    String name = PostgresJournalTest.newName();
    PostgresLocation where = at(database, USER, "");
    PostgresJournal.open(where, name).close();
    sql(
        database,
        "ALTER ROLE " + USER + " IN DATABASE " + database + " SET statement_timeout = '50ms'",
        // A busy server, where each batch's insert takes longer than the DBA's limit.
        "CREATE FUNCTION slow() RETURNS trigger LANGUAGE plpgsql AS"
            + " $$ BEGIN PERFORM pg_sleep(0.2); RETURN NEW; END $$",
        "CREATE TRIGGER slow BEFORE INSERT ON mesh_journal_record"
            + " FOR EACH ROW EXECUTE FUNCTION slow()");
    try (PostgresJournal j = PostgresJournal.open(where, name)) {
      j.append(PostgresJournalTest.authorised(0));
      j.append(PostgresJournalTest.authorised(1));
    }
    assertThat(PostgresJournal.readLines(where, name)).hasSize(3);
  }

  @Test
  void anIdleInTransactionTimeoutShorterThanTheLease_doesNotEndAReadOfTheJournal()
      throws Exception {
    String database = PostgresSchemaLockTest.server.newDatabase();
    String name = PostgresJournalTest.newName();
    PostgresLocation where = at(database, USER, "");
    sql(database, "ALTER DATABASE " + database + " SET idle_in_transaction_session_timeout = 200");
    try (PostgresJournal j = PostgresJournal.open(where, name)) {
      j.append(PostgresJournalTest.authorised(0));
      j.append(PostgresJournalTest.authorised(1));
      // A steward starting from a snapshot replays the records after it as they stream; a slow
      // replay (a loaded machine) leaves the read's session idle in its transaction meanwhile. One
      // pause of twice the database's limit, at the first record, is that replay.
      List<JournalRecord> read = new ArrayList<>();
      j.read(
          JournalPosition.GENESIS,
          new HashMap<>(),
          r -> {
            read.add(r);
            if (read.size() == 1) {
              try {
                Thread.sleep(400);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            }
          });
      assertThat(read).hasSize(3);
    }
  }

  @Test
  void aRolesLockTimeoutTunedForQueries_doesNotFailABatchWaitingForTheTablesLock()
      throws Exception {
    String database = PostgresSchemaLockTest.server.newDatabase();
    PostgresLocation where = at(database, USER, "");
    sql(database, "ALTER ROLE " + USER + " IN DATABASE " + database + " SET lock_timeout = '10ms'");
    String name = PostgresJournalTest.newName();
    try (PostgresJournal j = PostgresJournal.open(where, name);
        Connection dba = PostgresSchemaLockTest.server.connect(database);
        Statement s = dba.createStatement()) {
      // A DBA building an index (CREATE INDEX, not CONCURRENTLY) holds the table's SHARE lock,
      // which every insert waits for.
      dba.setAutoCommit(false);
      s.execute("LOCK TABLE mesh_journal_record IN SHARE MODE");
      CompletableFuture<Void> append =
          CompletableFuture.runAsync(
              () -> {
                try {
                  j.append(PostgresJournalTest.authorised(0));
                } catch (JournalException e) {
                  throw new CompletionException(e);
                }
              });
      PostgresSnapshotTerminatedTest.waitingForLock(
          PostgresSchemaLockTest.server, database, "WITH fence", append::isDone);
      dba.rollback();
      append.get(PostgresJournalFaultTest.GUARD_SECONDS, TimeUnit.SECONDS);
    }
    assertThat(PostgresJournal.readLines(where, name)).hasSize(2);
  }

  @Test
  void anIdleSessionTimeoutShorterThanTheLease_doesNotEndASessionBetweenTwoOfItsStatements()
      throws Exception {
    String database = PostgresSchemaLockTest.server.newDatabase();
    // A limit meant for connections an application leaked.
    sql(database, "ALTER DATABASE " + database + " SET idle_session_timeout = 100");
    PostgresLocation where = at(database, USER, "");
    try (Connection c = where.connect();
        Statement s = c.createStatement()) {
      // A snapshot save encodes its snapshot between two statements: a while, for a large one.
      Thread.sleep(400);
      try (ResultSet rs = s.executeQuery("SELECT 1")) {
        assertThat(rs.next()).isTrue();
      }
      // The lease from the session's start (its startup options), not from its first statement:
      // raised there, the 100 ms ran out first on a loaded machine before that statement arrived,
      // and the connection failed ("terminating connection due to idle-session timeout").
      try (ResultSet rs =
          s.executeQuery(
              "SELECT setting, source FROM pg_catalog.pg_settings"
                  + " WHERE name = 'idle_session_timeout'")) {
        assertThat(rs.next()).isTrue();
        assertThat(rs.getString(2)).isEqualTo("client");
        assertThat(rs.getString(1)).isEqualTo(Long.toString(where.lease().toMillis()));
      }
    }
  }

  /**
   * A pooler that drops the connection's startup options (PgBouncer with {@code options} among its
   * {@code ignore_startup_parameters}) leaves the session a DBA's short idle limit; the statement
   * that pins the path raises it to the lease. Regression: once the limit was set in the startup
   * options only, such a session was ended between two of the journal's statements ("terminating
   * connection due to idle-session timeout").
   */
  @Test
  void anIdleSessionTimeoutThePoolerKeptOutOfTheStartupOptions_isRaisedByThePin() throws Exception {
    String database = PostgresSchemaLockTest.server.newDatabase();
    PostgresLocation where = at(database, USER, "");
    // A session made without the journal's startup options, then given a DBA's limit (set here
    // rather than on the database, so that it cannot end the session before the pin runs).
    try (Connection c = PostgresSchemaLockTest.server.connect(database);
        Statement s = c.createStatement()) {
      s.execute("SET idle_session_timeout = 100");
      where.pin(c);
      Thread.sleep(300);
      try (ResultSet rs = s.executeQuery("SHOW idle_session_timeout")) {
        assertThat(rs.next()).isTrue();
        assertThat(rs.getString(1)).isEqualTo(where.lease().toSeconds() + "s");
      }
    }
  }

  @Test
  void aRolesSynchronousCommitBelowOn_isRaisedToOn_forTheJournalsSession() throws Exception {
    for (String setting : List.of("off", "local", "remote_write")) {
      String database = PostgresSchemaLockTest.server.newDatabase();
      // Chosen for an application's latency: with synchronous standbys named, local and
      // remote_write acknowledge a commit before a standby a failover promotes has it on disk.
      sql(
          database,
          "ALTER ROLE "
              + USER
              + " IN DATABASE "
              + database
              + " SET synchronous_commit = "
              + setting);
      List<Connection> session = new ArrayList<>();
      try (PostgresJournal j =
              PostgresJournal.open(
                  at(database, USER, ""),
                  PostgresJournalTest.newName(),
                  () -> {},
                  c -> {
                    session.add(c);
                    return c;
                  });
          Statement s = session.getFirst().createStatement();
          ResultSet rs = s.executeQuery("SHOW synchronous_commit")) {
        rs.next();
        assertThat(rs.getString(1)).as("the journal's session under %s", setting).isEqualTo("on");
        assertThat(j.epoch()).isEqualTo(1);
      }
    }
  }

  @Test
  void aSerializableDefaultIsolation_leavesTheJournalItsSnapshotsAndATakeoverWorking()
      throws Exception {
    String database = PostgresSchemaLockTest.server.newDatabase();
    sql(
        database,
        "ALTER DATABASE " + database + " SET default_transaction_isolation = 'serializable'");
    PostgresLocation where = at(database, USER, "");
    String name = PostgresJournalTest.newName();
    try (PostgresJournal j = PostgresJournal.open(where, name)) {
      j.append(PostgresJournalTest.authorised(0));
      j.append(PostgresJournalTest.authorised(1));
      // A successor opening while this one is open: refused, and the journal goes on.
      PostgresSchemaLockTest.assertLocked(where, name);
      j.append(PostgresJournalTest.authorised(2));
    }
    try (PostgresJournal j = PostgresJournal.open(where, name)) {
      assertThat(j.epoch()).isEqualTo(2);
      assertThat(j.position().count()).isEqualTo(4);
      List<JournalRecord> read = new ArrayList<>();
      j.read(JournalPosition.GENESIS, new HashMap<>(), read::add);
      assertThat(read).hasSize(4);
      j.append(PostgresJournalTest.authorised(3));
    }
    assertThat(PostgresJournal.readLines(where, name)).hasSize(5);
  }
}
