package org.meshjava.journal.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.meshjava.journal.JournalException;
import org.meshjava.journal.SnapshotException;

/**
 * A session whose transactions are read-only ({@code default_transaction_read_only = on}: a
 * database frozen for a migration, a role's setting, the URL's options). The journal makes its
 * tables, raises its epoch and writes records, and the server refused the first of those only as
 * "cannot execute INSERT in a read-only transaction". Opening and a snapshot save are refused
 * before anything, naming the setting; the setting is the DBA's, so it is not lifted.
 */
class PostgresReadOnlySessionTest {
  @BeforeAll
  static void startServer() {
    PostgresJournalTest.startServer();
  }

  @Test
  void aReadOnlySession_isRefusedAtOpeningAndAtASave_namingTheSetting() {
    PostgresLocation readOnly =
        PostgresLocation.parse(
            PostgresJournalTest.server.url(PostgresJournalTest.database)
                + "?options=-c%20default_transaction_read_only%3Don");
    String name = PostgresJournalTest.newName();
    JournalException opening =
        catchThrowableOfType(
            JournalException.class, () -> PostgresJournal.open(readOnly, name).close());
    assertThat(opening).isNotNull();
    assertThat(opening.reason()).isEqualTo(JournalException.Reason.IO);
    assertThat(opening.getMessage())
        .contains("default_transaction_read_only is on")
        .contains("SET default_transaction_read_only = off");

    SnapshotException save =
        catchThrowableOfType(
            SnapshotException.class,
            () -> PostgresSnapshotStore.of(readOnly, name).save(PostgresSnapshotStoreTest.at(1)));
    assertThat(save).isNotNull();
    assertThat(save.getMessage()).contains("default_transaction_read_only is on");
  }

  /**
   * The URL's {@code readOnly=true} (a read replica's settings copied): the driver begins every
   * transaction {@code READ ONLY} and leaves a statement on its own alone, so the raise of the
   * epoch went through, the journal opened, and its first batch failed it, "cannot execute INSERT
   * in a read-only transaction". Refused at opening and at a save, naming the parameter.
   */
  @Test
  void aUrlAskingForAReadOnlyConnection_isRefusedAtOpeningAndAtASave_namingIt() throws Exception {
    String name = PostgresJournalTest.newName();
    try (PostgresJournal j = PostgresJournal.open(PostgresJournalTest.location(), name)) {
      j.append(PostgresJournalTest.authorised(0)); // the tables made, the journal begun
    }
    PostgresLocation readOnly =
        PostgresLocation.parse(
            PostgresJournalTest.server.url(PostgresJournalTest.database) + "?readOnly=true");
    JournalException opening =
        catchThrowableOfType(
            JournalException.class, () -> PostgresJournal.open(readOnly, name).close());
    assertThat(opening).as("the opening").isNotNull();
    assertThat(opening.reason()).isEqualTo(JournalException.Reason.IO);
    assertThat(opening.getMessage()).contains("readOnly=true");

    SnapshotException save =
        catchThrowableOfType(
            SnapshotException.class,
            () -> PostgresSnapshotStore.of(readOnly, name).save(PostgresSnapshotStoreTest.at(1)));
    assertThat(save).as("the save").isNotNull();
    assertThat(save.getMessage()).contains("readOnly=true");
  }
}
