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

  /** A function that blanks the record a trigger is run for, after it is stored. */
  private static final String BLANK =
      "CREATE FUNCTION blank() RETURNS trigger LANGUAGE plpgsql AS $$BEGIN"
          + " UPDATE mesh_journal_record SET line = '\\x7b7d'::bytea"
          + " WHERE journal = NEW.journal AND seq = NEW.seq; RETURN NULL; END$$";

  /** Runs {@link #BLANK} after each record is inserted. */
  private static final String BLANKER =
      "CREATE TRIGGER blanker AFTER INSERT ON mesh_journal_record"
          + " FOR EACH ROW EXECUTE FUNCTION blank()";

  @Test
  void anAfterInsertTriggerThatRewritesRecords_isRefusedAtOpening_andNothingIsRaised()
      throws Exception {
    PostgresHostileDbaTest.Opened o =
        closedThen(
            BLANK,
            BLANKER,
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

  /**
   * A trigger the server does not fire in the steward's sessions: one enabled for replicas only
   * ({@code ENABLE REPLICA}, as a schema copied from a logical replication subscriber's carries it)
   * under the default {@code session_replication_role}. The opening refused it as if it ran, though
   * it cannot touch what the journal writes. Whether each fires follows the session's {@code
   * session_replication_role}, as the server's own choice does: in a database whose sessions are
   * replicas the replica's trigger is refused and the origin's is not, and one enabled {@code
   * ALWAYS} is refused under either.
   */
  @Test
  void aTriggerTheStewardsSessionsDoNotFire_isNotRefused() throws Exception {
    PostgresHostileDbaTest.Opened o =
        closedThen(
            BLANK, BLANKER, "ALTER TABLE mesh_journal_record ENABLE REPLICA TRIGGER blanker");
    try (PostgresJournal j = reopen(o)) {
      assertThat(j.epoch()).isEqualTo(2);
      j.append(PostgresJournalTest.authorised(1));
    }
    try (PostgresJournal j = reopen(o)) {
      assertThat(j.position().count()).as("stored as given").isEqualTo(3);
    }

    o.sql(
        "CREATE FUNCTION keep() RETURNS trigger LANGUAGE plpgsql AS $$BEGIN RETURN OLD; END$$",
        "CREATE TRIGGER keeper BEFORE UPDATE ON mesh_journal_owner"
            + " FOR EACH ROW EXECUTE FUNCTION keep()",
        "ALTER DATABASE " + o.database() + " SET session_replication_role = replica");
    assertThat(refusedOpening(o).getMessage())
        .contains("table mesh_journal_record carries trigger blanker")
        .doesNotContain("keeper");

    o.sql(
        "ALTER DATABASE " + o.database() + " RESET session_replication_role",
        "DROP TRIGGER keeper ON mesh_journal_owner",
        "ALTER TABLE mesh_journal_record ENABLE ALWAYS TRIGGER blanker");
    assertThat(refusedOpening(o).getMessage())
        .contains("table mesh_journal_record carries trigger blanker");
  }

  /**
   * The refusal's remedy names the table and the trigger or rule it is for, quoted, so that an
   * operator runs it as written: it said only "ALTER TABLE ... DISABLE TRIGGER name, DROP RULE",
   * leaving the table, the name and its quoting (capitals, a space) to be found.
   */
  @Test
  void theRemedy_namesEachTableAndTrigger_andRunsAsWritten() throws Exception {
    PostgresHostileDbaTest.Opened o =
        closedThen(
            BLANK,
            "CREATE TRIGGER \"Blank Er\" AFTER INSERT ON mesh_journal_record"
                + " FOR EACH ROW EXECUTE FUNCTION blank()",
            "CREATE RULE \"No Raise\" AS ON UPDATE TO mesh_journal_owner DO INSTEAD NOTHING");
    String message = refusedOpening(o).getMessage();
    assertThat(message)
        .contains("ALTER TABLE public.mesh_journal_record DISABLE TRIGGER \"Blank Er\"")
        .contains("DROP RULE \"No Raise\" ON public.mesh_journal_owner");

    String remedies =
        message.substring(
            message.indexOf("Drop it or disable it (") + "Drop it or disable it (".length(),
            message.indexOf("), then start the steward"));
    o.sql(remedies.split("; "));
    try (PostgresJournal j = reopen(o)) {
      assertThat(j.epoch()).isEqualTo(2);
      j.append(PostgresJournalTest.authorised(1));
    }
    assertThat(o.rows()).isEqualTo(3);
  }

  /**
   * An import (a file journal moved into the database) writes through an opening, so the same
   * refusal runs before its first row: a trigger that rewrites records after they are stored would
   * otherwise take the whole history at once, and only the next start would see it.
   */
  @Test
  void anImportIntoTablesWithARewritingTrigger_isRefused_beforeAnyRowIsWritten() throws Exception {
    PostgresHostileDbaTest.Opened o = closedThen(BLANK, BLANKER);
    PostgresLocation at = PostgresLocation.parse(PostgresHostileDbaTest.server.url(o.database()));
    java.util.List<byte[]> lines = PostgresJournal.readLines(at, o.name());
    String imported = PostgresJournalTest.newName();

    Throwable t = catchThrowable(() -> PostgresJournal.importLines(at, imported, lines));
    assertThat(t).isInstanceOf(JournalException.class);
    assertThat(((JournalException) t).reason()).isEqualTo(JournalException.Reason.IO);
    assertThat(t.getMessage())
        .contains("table mesh_journal_record carries trigger blanker")
        .contains("ALTER TABLE public.mesh_journal_record DISABLE TRIGGER \"blanker\"");
    assertThat(PostgresJournal.readLines(at, imported)).isEmpty();
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
