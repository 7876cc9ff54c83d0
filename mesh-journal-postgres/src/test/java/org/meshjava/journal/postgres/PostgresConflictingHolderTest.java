package org.meshjava.journal.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.meshjava.journal.postgres.PostgresSchemaLockTest.at;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.meshjava.journal.JournalException;
import org.meshjava.testpg.PostgresTestServer;

/**
 * Who a lock-timeout refusal names (SPEC.md 60.7, "Faults"): a batch's or an opening's refusal
 * named every session holding a lock on the tables it touches, a reader's beside the DBA's, and as
 * the lowest pid the one to end. Each now names only the sessions whose lock conflicts with the
 * mode its statements wait for on that table, as a snapshot save's did.
 */
class PostgresConflictingHolderTest {
  @BeforeAll
  static void startServer() {
    PostgresSchemaLockTest.startServer();
  }

  @Test
  void aBatchRefusedBehindADbasLock_namesTheDba_notAReaderOfTheOwnerTable() throws Exception {
    String database = PostgresSchemaLockTest.server.newDatabase();
    try (PostgresJournal j =
        PostgresJournal.open(
            at(database, PostgresTestServer.USER, DbaLock.UNBOUNDED),
            PostgresJournalTest.newName())) {
      j.append(PostgresJournalTest.authorised(0));
      try (DbaLock reader = DbaLock.in(database, "mesh_journal_owner", "ACCESS SHARE");
          DbaLock dba = DbaLock.on(database, "mesh_journal_record")) {
        JournalException e =
            catchThrowableOfType(
                JournalException.class, () -> j.append(PostgresJournalTest.authorised(1)));
        assertThat(e.reason()).isEqualTo(JournalException.Reason.FAILED);
        dba.assertNamedBy(e.getMessage());
        assertThat(e.getMessage()).doesNotContainPattern("pid " + reader.pid() + "\\b");
      }
    }
  }

  @Test
  void anOpeningRefusedBehindADbasLock_namesTheDba_notAReaderOfTheRecords() throws Exception {
    String database = PostgresSchemaLockTest.server.newDatabase();
    String name = PostgresJournalTest.newName();
    PostgresLocation where = at(database, PostgresTestServer.USER, DbaLock.UNBOUNDED);
    PostgresJournal.open(where, name).close();
    try (DbaLock reader = DbaLock.in(database, "mesh_journal_record", "ACCESS SHARE");
        DbaLock dba = DbaLock.on(database, "mesh_journal_owner")) {
      JournalException e =
          catchThrowableOfType(JournalException.class, () -> PostgresJournal.open(where, name));
      assertThat(e.reason()).isEqualTo(JournalException.Reason.IO);
      dba.assertNamedBy(e.getMessage());
      assertThat(e.getMessage()).doesNotContainPattern("pid " + reader.pid() + "\\b");
    }
  }
}
