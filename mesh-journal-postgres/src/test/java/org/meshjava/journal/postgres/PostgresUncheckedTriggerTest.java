package org.meshjava.journal.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.meshjava.journal.JournalException;

/**
 * Triggers a DBA put on the journal's tables while no steward ran (SPEC.md 60.7, "Faults"). One run
 * after a record is inserted may update it once the batch's own checks have passed it: the batch
 * was acknowledged, its receipts handed out, and only the next start's chain check found the table
 * holding other records. One on the owner table may keep an epoch from rising, and with it the
 * fence. Opening refuses both before raising anything; a guard against edits is left alone.
 */
class PostgresUncheckedTriggerTest {
  @BeforeAll
  static void startServer() {
    PostgresHostileDbaTest.startServer();
  }

  @Test
  void anAfterInsertTriggerThatRewritesRecords_isRefusedAtOpening_andNothingIsRaised()
      throws Exception {
    PostgresHostileDbaTest.Opened o =
        closedThen(
            "CREATE FUNCTION blank() RETURNS trigger LANGUAGE plpgsql AS $$BEGIN"
                + " UPDATE mesh_journal_record SET line = '\\x7b7d'::bytea"
                + " WHERE journal = NEW.journal AND seq = NEW.seq; RETURN NULL; END$$",
            "CREATE TRIGGER blanker AFTER INSERT ON mesh_journal_record"
                + " FOR EACH ROW EXECUTE FUNCTION blank()",
            "CREATE FUNCTION keep() RETURNS trigger LANGUAGE plpgsql AS $$BEGIN RETURN OLD; END$$",
            "CREATE TRIGGER keeper BEFORE UPDATE ON mesh_journal_owner"
                + " FOR EACH ROW EXECUTE FUNCTION keep()");
    JournalException e = refusedOpening(o);
    assertThat(e.getMessage())
        .contains("table mesh_journal_record carries trigger blanker")
        .contains("table mesh_journal_owner carries trigger keeper")
        .contains("DISABLE TRIGGER");

    o.sql("ALTER TABLE mesh_journal_owner DISABLE TRIGGER keeper");
    assertThat(refusedOpening(o).getMessage()).doesNotContain("keeper").contains("blanker");

    o.sql("DROP TRIGGER blanker ON mesh_journal_record");
    try (PostgresJournal j = reopen(o)) {
      assertThat(j.epoch()).as("the refused openings raised nothing").isEqualTo(2);
      j.append(PostgresJournalTest.authorised(1));
    }
    assertThat(o.rows()).isEqualTo(3);
  }

  @Test
  void aGuardAgainstEditingRecords_andAWatchOnInserts_beforeTheyAreStored_stillOpen()
      throws Exception {
    PostgresHostileDbaTest.Opened o =
        closedThen(
            "CREATE FUNCTION forbid() RETURNS trigger LANGUAGE plpgsql AS"
                + " $$BEGIN RAISE EXCEPTION 'records are not edited'; END$$",
            "CREATE TRIGGER guard BEFORE UPDATE OR DELETE ON mesh_journal_record"
                + " FOR EACH ROW EXECUTE FUNCTION forbid()",
            "CREATE FUNCTION watch() RETURNS trigger LANGUAGE plpgsql AS $$BEGIN RETURN NEW; END$$",
            "CREATE TRIGGER watcher BEFORE INSERT ON mesh_journal_record"
                + " FOR EACH ROW EXECUTE FUNCTION watch()");
    try (PostgresJournal j = reopen(o)) {
      j.append(PostgresJournalTest.authorised(1));
    }
    assertThat(o.rows()).isEqualTo(3);
  }

  /** A journal of two records, closed, then the DBA's {@code statements} run in its database. */
  private static PostgresHostileDbaTest.Opened closedThen(String... statements) throws Exception {
    PostgresHostileDbaTest.Opened o = PostgresHostileDbaTest.Opened.open();
    o.journal().close();
    o.sql(statements);
    return o;
  }

  private static PostgresJournal reopen(PostgresHostileDbaTest.Opened o) throws Exception {
    return PostgresJournal.open(
        PostgresLocation.parse(PostgresHostileDbaTest.server.url(o.database())), o.name());
  }

  /** The refusal of an opening of {@code o}'s journal, which must be IO. */
  private static JournalException refusedOpening(PostgresHostileDbaTest.Opened o) {
    Throwable t = catchThrowable(() -> reopen(o).close());
    assertThat(t).isInstanceOf(JournalException.class);
    JournalException e = (JournalException) t;
    assertThat(e.reason()).as(e.getMessage()).isEqualTo(JournalException.Reason.IO);
    return e;
  }
}
