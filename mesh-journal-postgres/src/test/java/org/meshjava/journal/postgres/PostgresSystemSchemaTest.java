package org.meshjava.journal.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.meshjava.journal.JournalException;

/**
 * A session whose path names {@code pg_catalog} first, with no {@code schema=} in the URL (SPEC.md
 * 60.7, "Schema"): the journal's schema would be the system's, where no table can be made. The
 * opening was refused at its first {@code CREATE TABLE}, in the server's words ("permission denied
 * to create pg_catalog.mesh_journal_owner"), which name neither the path nor the remedy; it is
 * refused as the session is made, in words that do.
 */
class PostgresSystemSchemaTest {
  @BeforeAll
  static void startServer() {
    PostgresJournalTest.startServer();
  }

  @Test
  void aPathNamingPgCatalogFirst_isRefusedInOurWords_namingSchemaInTheUrl() {
    JournalException e = refused("?options=-c%20search_path%3Dpg_catalog,public");
    assertThat(e.getMessage())
        .contains("schema pg_catalog (the first schema of the session's search_path")
        .contains("name another with schema= in the URL")
        .doesNotContain("permission denied");
  }

  @Test
  void aUrlNamingPgCatalog_isRefusedInOurWords() {
    assertThat(refused("?schema=pg_catalog").getMessage())
        .contains("schema pg_catalog (schema= in the URL)")
        .contains("is the system's");
  }

  private static JournalException refused(String query) {
    PostgresLocation location =
        PostgresLocation.parse(
            PostgresJournalTest.server.url(PostgresJournalTest.database) + query);
    JournalException e =
        catchThrowableOfType(
            JournalException.class,
            () -> PostgresJournal.open(location, PostgresJournalTest.newName()).close());
    assertThat(e).isNotNull();
    assertThat(e.reason()).as(e.getMessage()).isEqualTo(JournalException.Reason.IO);
    return e;
  }
}
