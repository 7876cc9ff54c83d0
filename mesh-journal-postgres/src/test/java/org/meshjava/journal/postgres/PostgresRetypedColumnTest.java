package org.meshjava.journal.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.meshjava.journal.JournalException;
import org.meshjava.journal.postgres.PostgresNulledColumnTest.Written;

/**
 * A DBA who retypes a record column ({@code line} to text, SPEC.md 60.7, "Tables"): every record
 * still read back (the driver hands a text's bytes as they are), so the journal opened, and then
 * failed at its first record, after every restart. The opening is refused, naming the column.
 */
class PostgresRetypedColumnTest {
  @BeforeAll
  static void startServer() {
    PostgresNulledColumnTest.startServer();
  }

  @Test
  void aLineRetypedToText_refusesTheOpening_namingTheColumnAndItsFix() throws Exception {
    Written w =
        Written.records(
            2,
            "ALTER TABLE mesh_journal_record ALTER COLUMN line TYPE text"
                + " USING pg_catalog.encode(line, 'escape')");

    JournalException e = w.refusedOpening();
    assertThat(e).as("the opening of a journal whose line column is text").isNotNull();
    assertThat(e.reason()).as(e.getMessage()).isEqualTo(JournalException.Reason.IO);
    assertThat(e.getMessage())
        .contains("column line of table mesh_journal_record has type text, not the bytea")
        .contains("ALTER COLUMN \"line\" TYPE bytea USING");
  }
}
