package org.meshjava.journal.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.meshjava.testpg.PostgresTestServer;

/**
 * A journal's lock and the lock that serialises creating the tables are in key spaces of their own:
 * a journal named {@code schema} in {@code public}, whose key is its name's alone (SPEC.md 60.7),
 * held for the steward's whole life, leaves every other journal of its database free to open.
 */
class PostgresJournalNamedSchemaTest {
  @Test
  void aJournalNamedSchema_heldOpen_blocksNoOtherOpening() throws Exception {
    PostgresTestServer server = PostgresTestServer.shared();
    String database = server.newDatabase();
    // The shortest lease: an opening stuck behind the held lock fails when the driver gives up.
    PostgresLocation where =
        PostgresLocation.parse(
            "postgresql://"
                + PostgresTestServer.USER
                + "@127.0.0.1:"
                + server.port()
                + "/"
                + database
                + "?lease_ms=1000");
    try (PostgresJournal held = PostgresJournal.open(where, "schema")) {
      held.append(PostgresJournalTest.authorised(0));
      try (PostgresJournal other = PostgresJournal.open(where, PostgresJournalTest.newName())) {
        long before = other.position().count();
        other.append(PostgresJournalTest.authorised(0));
        assertThat(other.position().count()).isGreaterThan(before);
      }
    }
  }
}
