package org.meshjava.journal.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.Statement;
import org.junit.jupiter.api.Test;
import org.meshjava.journal.JournalException;
import org.meshjava.testpg.PostgresTestServer;

/**
 * A journal's rows copied into another database (SPEC.md 60.7, "Copies"): the copy is refused
 * {@code MISPLACED} until it is adopted, and the original opens as before.
 */
class PostgresCopiedJournalTest {
  private static final PostgresTestServer SERVER = PostgresTestServer.shared();

  @Test
  void aCopyInAnotherDatabase_isRefusedMisplaced_untilAdopted_andTheOriginalStillOpens()
      throws Exception {
    String original = SERVER.newDatabase();
    String name = PostgresJournalTest.newName();
    PostgresLocation there = PostgresLocation.parse(SERVER.url(original));
    try (PostgresJournal j = PostgresJournal.open(there, name)) {
      j.append(PostgresJournalTest.authorised(0));
    }
    String copy = copyOf(original);
    PostgresLocation here = PostgresLocation.parse(SERVER.url(copy));

    assertThatThrownBy(() -> PostgresJournal.open(here, name))
        .isInstanceOfSatisfying(
            JournalException.class,
            e -> {
              assertThat(e.reason()).isEqualTo(JournalException.Reason.MISPLACED);
              assertThat(e.getMessage())
                  .contains("was written in database oid")
                  .contains("copied here")
                  .contains("mesh journal adopt");
            });
    try (PostgresJournal j = PostgresJournal.open(there, name)) {
      assertThat(j.epoch()).as("the original is its own still").isEqualTo(2);
    }

    try (PostgresJournal j = PostgresJournal.adopt(here, name)) {
      assertThat(j.epoch()).as("the refused opening raised nothing").isEqualTo(2);
      j.append(PostgresJournalTest.authorised(1));
    }
    try (PostgresJournal j = PostgresJournal.open(here, name)) {
      assertThat(j.epoch()).as("adopted once, the copy opens as its own").isEqualTo(3);
    }
    assertThat(PostgresJournal.readLines(here, name)).hasSize(3);
  }

  @Test
  void anOwnerRowOfAnEarlierVersion_opens_andIsRecordedFromThen() throws Exception {
    String original = SERVER.newDatabase();
    String name = PostgresJournalTest.newName();
    PostgresLocation there = PostgresLocation.parse(SERVER.url(original));
    PostgresJournal.open(there, name).close();
    // The owner table as versions before the columns made it, and its row without them.
    try (Connection c = SERVER.connect(original);
        Statement s = c.createStatement()) {
      s.execute("ALTER TABLE mesh_journal_owner DROP COLUMN cluster_id, DROP COLUMN database_oid");
    }
    // A copy made before this version first opened the original is not seen: nothing says where
    // its rows were written.
    PostgresLocation earlyCopy = PostgresLocation.parse(SERVER.url(copyOf(original)));
    try (PostgresJournal j = PostgresJournal.open(there, name)) {
      assertThat(j.epoch()).isEqualTo(2);
    }
    PostgresJournal.open(earlyCopy, name).close();

    PostgresLocation copy = PostgresLocation.parse(SERVER.url(copyOf(original)));
    assertThatThrownBy(() -> PostgresJournal.open(copy, name))
        .isInstanceOfSatisfying(
            JournalException.class,
            e -> assertThat(e.reason()).isEqualTo(JournalException.Reason.MISPLACED));
  }

  @Test
  void anEarlierVersionsOwnerTable_thatTheRoleDoesNotOwn_stillOpens() throws Exception {
    String database = SERVER.newDatabase();
    String role = "tenant_" + Long.toHexString(System.nanoTime());
    String name = PostgresJournalTest.newName();
    PostgresJournal.open(PostgresLocation.parse(SERVER.url(database)), name).close();
    try (Connection c = SERVER.connect(database);
        Statement s = c.createStatement()) {
      s.execute("ALTER TABLE mesh_journal_owner DROP COLUMN cluster_id, DROP COLUMN database_oid");
      s.execute("CREATE ROLE " + role + " LOGIN");
      s.execute(
          "GRANT SELECT, INSERT, UPDATE ON mesh_journal_owner, mesh_journal_record,"
              + " mesh_journal_snapshot TO "
              + role);
    }
    PostgresLocation asTenant =
        PostgresLocation.parse(
            "postgresql://" + role + "@127.0.0.1:" + SERVER.port() + "/" + database);
    try (PostgresJournal j = PostgresJournal.open(asTenant, name)) {
      j.append(PostgresJournalTest.authorised(0));
      assertThat(j.epoch()).isEqualTo(2);
    }
  }

  @Test
  void anEarlierVersionsOwnerTable_heldInAnotherTransaction_stillOpens_andGainsItsColumnsLater()
      throws Exception {
    String database = SERVER.newDatabase();
    String name = PostgresJournalTest.newName();
    PostgresLocation where = PostgresLocation.parse(SERVER.url(database));
    PostgresJournal.open(where, name).close();
    try (Connection c = SERVER.connect(database);
        Statement s = c.createStatement()) {
      s.execute("ALTER TABLE mesh_journal_owner DROP COLUMN cluster_id, DROP COLUMN database_oid");
    }
    try (Connection holder = SERVER.connect(database);
        Statement s = holder.createStatement()) {
      // A session a DBA left in a transaction that read the table: adding the columns waits for
      // it, and would until the driver gave up a lease later.
      holder.setAutoCommit(false);
      s.execute("SELECT count(*) FROM mesh_journal_owner");
      try (PostgresJournal j = PostgresJournal.open(where, name)) {
        assertThat(j.epoch()).isEqualTo(2);
      }
      holder.rollback();
    }
    PostgresJournal.open(where, name).close();
    PostgresLocation copy = PostgresLocation.parse(SERVER.url(copyOf(database)));
    assertThatThrownBy(() -> PostgresJournal.open(copy, name))
        .isInstanceOfSatisfying(
            JournalException.class,
            e -> assertThat(e.reason()).isEqualTo(JournalException.Reason.MISPLACED));
  }

  /** A new database made from {@code database} as its template: the same rows, another oid. */
  private static String copyOf(String database) throws Exception {
    String copy = SERVER.newDatabase();
    try (Connection c = SERVER.connect("postgres");
        Statement s = c.createStatement()) {
      s.execute("DROP DATABASE " + copy);
      s.execute("CREATE DATABASE " + copy + " TEMPLATE " + database);
    }
    return copy;
  }
}
