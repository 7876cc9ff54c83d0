package org.meshjava.journal.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.Statement;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.meshjava.journal.JournalException;
import org.meshjava.journal.SnapshotException;
import org.meshjava.testpg.PostgresTestServer;

/**
 * A DBA who drops a column's NOT NULL and empties a row (SPEC.md 60.7, "Faults"): the driver then
 * hands back null where the journal reads a value, which became a NullPointerException at opening
 * (a line, a snapshot) or an epoch of 0 that every later opening got too. Each is refused typed,
 * naming the row. Each test has a database of its own, since the tables are changed.
 */
class PostgresNulledColumnTest {
  private static PostgresTestServer server;

  @BeforeAll
  static void startServer() {
    server = PostgresTestServer.shared();
  }

  @Test
  void aNulledLine_refusesTheOpening_asCorrupt_namingItsSeq() throws Exception {
    Written w =
        Written.records(
            2,
            "ALTER TABLE mesh_journal_record ALTER COLUMN line DROP NOT NULL",
            "UPDATE mesh_journal_record SET line = NULL WHERE seq = 1");

    JournalException e = w.refusedOpening();
    assertThat(e).isNotNull();
    assertThat(e.reason()).as(e.getMessage()).isEqualTo(JournalException.Reason.CORRUPT);
    assertThat(e.seq()).hasValue(1);
    assertThat(e.getMessage()).contains("whose line is NULL");
    // The lock-free read says the same.
    JournalException read =
        catchThrowableOfType(
            JournalException.class, () -> PostgresJournal.readLines(w.where(), w.name()));
    assertThat(read).isNotNull();
    assertThat(read.seq()).hasValue(1);
  }

  @Test
  void aNulledEpoch_refusesTheOpening_asCorrupt_notAnEpochOfZero() throws Exception {
    Written w =
        Written.records(
            1,
            "ALTER TABLE mesh_journal_owner ALTER COLUMN epoch DROP NOT NULL",
            "UPDATE mesh_journal_owner SET epoch = NULL");

    JournalException e = w.refusedOpening();
    assertThat(e).isNotNull();
    assertThat(e.reason()).as(e.getMessage()).isEqualTo(JournalException.Reason.CORRUPT);
    assertThat(e.getMessage()).contains("holds epoch NULL").contains(w.name());
  }

  /**
   * The lock keeps other stewards out, not a DBA: an epoch nulled after the opening's check and
   * before its raise stayed NULL (NULL + 1), which the driver read as 0, and the journal opened at
   * epoch 0, an epoch no steward has.
   */
  @Test
  void anEpochNulledJustBeforeTheRaise_refusesTheOpening_notAnEpochOfZero() throws Exception {
    Written w =
        Written.records(1, "ALTER TABLE mesh_journal_owner ALTER COLUMN epoch DROP NOT NULL");
    Connection[] dba = new Connection[1];
    try (Connection c = server.connect(w.database())) {
      dba[0] = c;
      JournalException e =
          catchThrowableOfType(
              JournalException.class,
              () ->
                  PostgresJournal.open(
                          w.where(),
                          w.name(),
                          () -> {},
                          real -> nullingBeforeTheRaise(real, dba[0]))
                      .close());
      assertThat(e).as("the opening").isNotNull();
      assertThat(e.reason()).as(e.getMessage()).isEqualTo(JournalException.Reason.CORRUPT);
      assertThat(e.getMessage()).contains("holds epoch NULL").contains(w.name());
    }
  }

  /** {@code real}, on which the DBA's {@code dba} nulls the epoch as the raise is prepared. */
  private static Connection nullingBeforeTheRaise(Connection real, Connection dba) {
    return (Connection)
        Proxy.newProxyInstance(
            Connection.class.getClassLoader(),
            new Class<?>[] {Connection.class},
            (p, m, args) -> {
              if (m.getName().equals("prepareStatement")
                  && args[0] instanceof String sql
                  && sql.contains("DO UPDATE SET")) {
                try (Statement s = dba.createStatement()) {
                  s.execute("UPDATE mesh_journal_owner SET epoch = NULL");
                }
              }
              try {
                return m.invoke(real, args);
              } catch (InvocationTargetException e) {
                throw e.getCause();
              }
            });
  }

  /**
   * Under a running journal a NULL epoch was read as 0: "no owner row any more", which is not so.
   */
  @Test
  void anEpochNulledUnderARunningJournal_failsItsNextBatch_sayingNull_notADeletedRow()
      throws Exception {
    assertThat(batchRefused(NULLED_EPOCH))
        .contains("has epoch NULL in its owner row")
        .doesNotContain("no owner row")
        .doesNotContain("taken over");
  }

  @Test
  void anEpochNulledUnderARunningJournal_failsItsHeartbeat_sayingNull_notADeletedRow()
      throws Exception {
    assertThat(heartbeatRefused(NULLED_EPOCH))
        .contains("has epoch NULL in its owner row")
        .doesNotContain("no owner row");
  }

  /**
   * An epoch set to 0 (its CHECK dropped) is no more a steward's than NULL: it was "taken over by
   * another steward (epoch 0)", FENCED, sending the operator after a steward that does not exist.
   */
  @Test
  void anEpochZeroedUnderARunningJournal_failsItsNextBatch_notATakeover() throws Exception {
    assertThat(batchRefused(ZEROED_EPOCH))
        .contains("has epoch 0 in its owner row")
        .doesNotContain("taken over by");
  }

  @Test
  void anEpochZeroedUnderARunningJournal_failsItsHeartbeat_notATakeover() throws Exception {
    assertThat(heartbeatRefused(ZEROED_EPOCH))
        .contains("has epoch 0 in its owner row")
        .doesNotContain("taken over by");
  }

  /**
   * An epoch set back, still above 0, below the one the journal opened at: a successor only raises
   * it, so no steward wrote it. It was "taken over by another steward", FENCED, as a raise is.
   */
  @Test
  void anEpochSetBackUnderARunningJournal_failsItsNextBatch_asAHandEdit_notATakeover()
      throws Exception {
    assertThat(batchRefused(SET_BACK_EPOCH))
        .contains("has epoch 1 in its owner row in mesh_journal_owner (below the 2 it opened at")
        .contains("changed by hand")
        .doesNotContain("taken over by");
  }

  @Test
  void anEpochSetBackUnderARunningJournal_failsItsHeartbeat_asAHandEdit_notATakeover()
      throws Exception {
    assertThat(heartbeatRefused(SET_BACK_EPOCH))
        .contains("has epoch 1 in its owner row in mesh_journal_owner (below the 2 it opened at")
        .doesNotContain("taken over by");
  }

  /** The refusal, FAILED, of the next batch of a running journal after {@code edit}. */
  private static String batchRefused(String... edit) throws Exception {
    Running r = Running.open("?lease_ms=60000");
    try (PostgresJournal j = r.journal()) {
      sql(r.database(), edit);
      JournalException e =
          catchThrowableOfType(
              JournalException.class, () -> j.append(PostgresJournalTest.authorised(1)));
      assertThat(e).as("the batch").isNotNull();
      assertThat(e.reason()).as(e.getMessage()).isEqualTo(JournalException.Reason.FAILED);
      return e.getMessage();
    }
  }

  /** Why a running journal refuses appends once its heartbeat has run after {@code edit}. */
  private static String heartbeatRefused(String... edit) throws Exception {
    // The shortest lease: a heartbeat every third of a second.
    Running r = Running.open("?lease_ms=1000");
    try (PostgresJournal j = r.journal()) {
      sql(r.database(), edit);
      for (int i = 0; i < 300 && j.refusesAppends().isEmpty(); i++) {
        Thread.sleep(20);
      }
      assertThat(j.refusesAppends()).as("the heartbeat's failure").isPresent();
      return j.refusesAppends().get();
    }
  }

  private static final String[] ZEROED_EPOCH = {
    "ALTER TABLE mesh_journal_owner DROP CONSTRAINT mesh_journal_owner_epoch_check",
    "UPDATE mesh_journal_owner SET epoch = 0"
  };

  /** The running journal opened at epoch 2 (see Running.open); set back to 1. */
  private static final String[] SET_BACK_EPOCH = {"UPDATE mesh_journal_owner SET epoch = 1"};

  private static final String[] NULLED_EPOCH = {
    "ALTER TABLE mesh_journal_owner ALTER COLUMN epoch DROP NOT NULL",
    "UPDATE mesh_journal_owner SET epoch = NULL"
  };

  /**
   * An open journal holding one record, in a database of its own, at epoch 2: opened once before,
   * so that an epoch set back can stay above 0.
   */
  record Running(String database, PostgresJournal journal) {
    static Running open(String parameters) throws Exception {
      String database = server.newDatabase();
      PostgresLocation where = PostgresLocation.parse(server.url(database) + parameters);
      String name = PostgresJournalTest.newName();
      PostgresJournal.open(where, name).close();
      PostgresJournal j = PostgresJournal.open(where, name);
      j.append(PostgresJournalTest.authorised(0));
      return new Running(database, j);
    }
  }

  /** A NULL row's size is NULL, read as 0: its header's read said it "ended at byte 0". */
  @Test
  void aNulledSnapshot_isRefusedTyped_byTheHeadersReadToo() throws Exception {
    PostgresSnapshotStore store = nulledSnapshot();
    SnapshotException e = catchThrowableOfType(SnapshotException.class, store::latestHeader);
    assertThat(e).isNotNull();
    assertThat(e.reason()).isEqualTo(SnapshotException.Reason.MALFORMED);
    assertThat(e.getMessage()).contains("(count 5) is NULL").doesNotContain("ended");
  }

  /** A store whose one snapshot, at count 5, a DBA nulled. */
  private static PostgresSnapshotStore nulledSnapshot() throws Exception {
    String database = server.newDatabase();
    PostgresSnapshotStore store =
        PostgresSnapshotStore.of(PostgresLocation.parse(server.url(database)), "did:key:n");
    store.save(PostgresSnapshotStoreTest.at(5));
    sql(
        database,
        "ALTER TABLE mesh_journal_snapshot ALTER COLUMN snapshot DROP NOT NULL",
        "UPDATE mesh_journal_snapshot SET snapshot = NULL");
    return store;
  }

  @Test
  void aNulledSnapshot_isRefusedTyped_namingItsCount() throws Exception {
    PostgresSnapshotStore store = nulledSnapshot();
    SnapshotException e = catchThrowableOfType(SnapshotException.class, store::latest);
    assertThat(e).isNotNull();
    assertThat(e.reason()).isEqualTo(SnapshotException.Reason.MALFORMED);
    assertThat(e.getMessage()).contains("(count 5) is NULL");
  }

  /** A journal in a database of its own, written and closed, then changed by a DBA. */
  record Written(String database, PostgresLocation where, String name) {
    /** Writes {@code count} records, closes the journal, then runs the DBA's {@code changes}. */
    static Written records(int count, String... changes) throws Exception {
      String database = server.newDatabase();
      Written w =
          new Written(
              database,
              PostgresLocation.parse(server.url(database)),
              PostgresJournalTest.newName());
      try (PostgresJournal j = PostgresJournal.open(w.where(), w.name())) {
        for (int i = 0; i < count; i++) {
          j.append(PostgresJournalTest.authorised(i));
        }
      }
      sql(database, changes);
      return w;
    }

    /** What the next opening is refused with; null where it opens. */
    JournalException refusedOpening() {
      return catchThrowableOfType(
          JournalException.class, () -> PostgresJournal.open(where, name).close());
    }
  }

  private static void sql(String database, String... statements) throws Exception {
    try (Connection c = server.connect(database);
        Statement s = c.createStatement()) {
      for (String statement : statements) {
        s.execute(statement);
      }
    }
  }
}
