package org.meshjava.journal.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.meshjava.journal.JournalException;
import org.meshjava.testpg.PostgresTestServer;

/**
 * A DBA's nondeterministic collation on a column the journal compares (SPEC.md 60.7, "Schema").
 * Under a case-insensitive one, two journals whose names differ in case alone ({@code did:key}
 * names are base58, where case is meaning) were one: the second steward's opening raised the
 * first's owner row, fencing it, and read its records as its own. Opening now refuses such a
 * column, naming it and the statement that puts it back. The suite's PostgreSQL (14) is built with
 * ICU.
 */
class PostgresNondeterministicCollationTest {
  @BeforeAll
  static void startServer() {
    PostgresHostileDbaTest.startServer();
  }

  @Test
  void aCaseInsensitiveJournalColumn_isRefusedAtOpening_beforeAnotherJournalsRowIsRaised()
      throws Exception {
    PostgresHostileDbaTest.Opened o = PostgresHostileDbaTest.Opened.open();
    o.journal().close();
    o.sql(
        "CREATE COLLATION ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false)",
        "ALTER TABLE mesh_journal_owner ALTER COLUMN journal TYPE text COLLATE ci",
        "ALTER TABLE mesh_journal_record ALTER COLUMN journal TYPE text COLLATE ci");
    PostgresLocation at = PostgresLocation.parse(PostgresTestServer.shared().url(o.database()));
    // The same steward's name but for the case of its letters: another steward.
    String other = o.name().toUpperCase(java.util.Locale.ROOT).replace("DID:KEY:", "did:key:");
    assertThat(other).isNotEqualTo(o.name());

    Throwable t = catchThrowable(() -> PostgresJournal.open(at, other).close());
    assertThat(t).isInstanceOf(JournalException.class);
    JournalException e = (JournalException) t;
    assertThat(e.reason()).as(e.getMessage()).isEqualTo(JournalException.Reason.IO);
    assertThat(e.getMessage())
        .contains("column journal of table mesh_journal_owner has collation \"ci\"")
        .contains("column journal of table mesh_journal_record has collation \"ci\"")
        .contains("nondeterministic");

    // Put back as the refusal says: each journal is its own again, the first untouched.
    o.sql(
        "ALTER TABLE mesh_journal_owner ALTER COLUMN journal TYPE text COLLATE"
            + " pg_catalog.\"default\"",
        "ALTER TABLE mesh_journal_record ALTER COLUMN journal TYPE text COLLATE"
            + " pg_catalog.\"default\"");
    try (PostgresJournal first = PostgresJournal.open(at, o.name())) {
      assertThat(first.epoch()).as("the refused opening raised nothing").isEqualTo(2);
      assertThat(first.position().count()).isEqualTo(2);
    }
    try (PostgresJournal second = PostgresJournal.open(at, other)) {
      assertThat(second.epoch()).isEqualTo(1);
      assertThat(second.position().count()).isZero();
    }
  }

  /**
   * A unique index a DBA made under such a collation, the columns left as they were: the raise's
   * {@code INSERT ... ON CONFLICT (journal)} takes every unique index on the column for an arbiter,
   * so the second steward's opening found the first's row in it and raised that row's epoch.
   */
  @Test
  void aCaseInsensitiveUniqueIndexOnTheOwnerTable_isRefusedAtOpening_namingIt() throws Exception {
    PostgresHostileDbaTest.Opened o = PostgresHostileDbaTest.Opened.open();
    o.journal().close();
    o.sql(
        "CREATE COLLATION ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false)",
        "CREATE UNIQUE INDEX \"Owner CI\" ON mesh_journal_owner (journal COLLATE ci)");
    PostgresLocation at = PostgresLocation.parse(PostgresTestServer.shared().url(o.database()));
    String other = o.name().toUpperCase(java.util.Locale.ROOT).replace("DID:KEY:", "did:key:");

    Throwable t = catchThrowable(() -> PostgresJournal.open(at, other).close());
    assertThat(t).isInstanceOf(JournalException.class);
    String message = t.getMessage();
    assertThat(message)
        .contains(
            "unique index \"Owner CI\" on table mesh_journal_owner compares with collation \"ci\"")
        .doesNotContain("column journal");

    o.sql("DROP INDEX \"Owner CI\"");
    try (PostgresJournal first = PostgresJournal.open(at, o.name())) {
      assertThat(first.epoch()).as("the refused opening raised nothing").isEqualTo(2);
    }
    try (PostgresJournal second = PostgresJournal.open(at, other)) {
      assertThat(second.epoch()).isEqualTo(1);
    }
  }
}
