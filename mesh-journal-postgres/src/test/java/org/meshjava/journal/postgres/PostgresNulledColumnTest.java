package org.meshjava.journal.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

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

  @Test
  void aNulledSnapshot_isRefusedTyped_namingItsCount() throws Exception {
    String database = server.newDatabase();
    PostgresSnapshotStore store =
        PostgresSnapshotStore.of(PostgresLocation.parse(server.url(database)), "did:key:n");
    store.save(PostgresSnapshotStoreTest.at(5));
    sql(
        database,
        "ALTER TABLE mesh_journal_snapshot ALTER COLUMN snapshot DROP NOT NULL",
        "UPDATE mesh_journal_snapshot SET snapshot = NULL");

    SnapshotException e = catchThrowableOfType(SnapshotException.class, store::latest);
    assertThat(e).isNotNull();
    assertThat(e.reason()).isEqualTo(SnapshotException.Reason.MALFORMED);
    assertThat(e.getMessage()).contains("(count 5) is NULL");
  }

  /** A journal in a database of its own, written and closed, then changed by a DBA. */
  record Written(PostgresLocation where, String name) {
    /** Writes {@code count} records, closes the journal, then runs the DBA's {@code changes}. */
    static Written records(int count, String... changes) throws Exception {
      String database = server.newDatabase();
      Written w =
          new Written(PostgresLocation.parse(server.url(database)), PostgresJournalTest.newName());
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
