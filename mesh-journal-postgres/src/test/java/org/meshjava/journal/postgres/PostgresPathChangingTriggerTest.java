package org.meshjava.journal.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.meshjava.journal.JournalException;
import org.meshjava.testpg.PostgresTestServer;

/**
 * A DBA's {@code BEFORE INSERT} trigger on the records table whose function changes the session's
 * {@code search_path} (SPEC.md 60.7, "Schema"), to a schema {@code shadow} holding tables of the
 * journal's names and a copy of its owner row. The trigger passes the check of each batch (it
 * changes no row), but every statement after it in the session was read under the new path, and
 * named its tables without their schema: with {@code SET LOCAL} the statements that explain a
 * failed batch read the copied owner row; with a plain {@code SET}, the next batch was written into
 * {@code shadow}'s table and acknowledged while the journal's own held none of it. The journal's
 * statements name their tables in full, so such a trigger changes nothing the journal does.
 */
class PostgresPathChangingTriggerTest {
  @BeforeAll
  static void startServer() {
    PostgresHostileDbaTest.startServer();
  }

  /** A schema shadow with tables of the journal's names, its owner row copied at {@code epoch}. */
  private static void shadow(PostgresHostileDbaTest.Opened o, long epoch) throws Exception {
    o.sql(
        "CREATE SCHEMA shadow",
        "CREATE TABLE shadow.mesh_journal_owner (LIKE public.mesh_journal_owner INCLUDING ALL)",
        "CREATE TABLE shadow.mesh_journal_record (LIKE public.mesh_journal_record INCLUDING ALL)",
        "INSERT INTO shadow.mesh_journal_owner (journal, epoch)"
            + " SELECT journal, "
            + epoch
            + " FROM public.mesh_journal_owner");
  }

  @Test
  void aTriggerSettingThePathForTheSession_leavesTheNextBatchesInTheJournalsTable()
      throws Exception {
    PostgresHostileDbaTest.Opened o = PostgresHostileDbaTest.Opened.open();
    shadow(o, 1);
    o.sql(
        "CREATE FUNCTION public.repath() RETURNS trigger LANGUAGE plpgsql AS"
            + " $$BEGIN PERFORM pg_catalog.set_config('search_path', 'shadow', false);"
            + " RETURN NEW; END$$",
        "CREATE TRIGGER repath BEFORE INSERT ON public.mesh_journal_record"
            + " FOR EACH ROW EXECUTE FUNCTION public.repath()");
    try (PostgresJournal j = o.journal()) {
      j.append(PostgresJournalTest.authorised(1));
      j.append(PostgresJournalTest.authorised(2));
      assertThat(j.position().count()).isEqualTo(4);
    }
    assertThat(count(o, "shadow.mesh_journal_record")).as("records written in shadow").isZero();
    assertThat(rows(o)).as("every acknowledged record in the journal's table").isEqualTo(4);
  }

  @Test
  void aTriggerSettingThePathLocally_andDroppingTheRow_isNamed_notTakenForATakeover()
      throws Exception {
    PostgresHostileDbaTest.Opened o = PostgresHostileDbaTest.Opened.open();
    shadow(o, 7);
    try (PostgresJournal j = o.journal()) {
      JournalException e =
          o.failedAfter(
              "CREATE FUNCTION public.swallow() RETURNS trigger LANGUAGE plpgsql AS"
                  + " $$BEGIN SET LOCAL search_path = shadow; RETURN NULL; END$$",
              "CREATE TRIGGER \"Swallow\" BEFORE INSERT ON public.mesh_journal_record"
                  + " FOR EACH ROW EXECUTE FUNCTION public.swallow()");
      assertThat(e.getMessage())
          .contains("stored 0 of its 1 records although its epoch (1) is still current")
          .contains("it carries trigger Swallow");
    }
    o.sql("DROP TRIGGER \"Swallow\" ON public.mesh_journal_record");
    assertThat(rows(o)).isEqualTo(2);
  }

  /**
   * A schema evil whose {@code =} on {@code type} answers {@code answer} (an SQL expression of its
   * arguments a and b), and a trigger on the records putting it ahead of pg_catalog in the
   * session's path, then running {@code then} (plpgsql statements).
   */
  private static void evilAheadOfPgCatalog(
      PostgresHostileDbaTest.Opened o, String type, String answer, String then) throws Exception {
    o.sql(
        "CREATE SCHEMA evil",
        "CREATE FUNCTION evil.eq(a "
            + type
            + ", b "
            + type
            + ") RETURNS boolean LANGUAGE sql IMMUTABLE AS 'SELECT "
            + answer
            + "'",
        "CREATE OPERATOR evil.= (LEFTARG = "
            + type
            + ", RIGHTARG = "
            + type
            + ", FUNCTION = evil.eq)",
        "CREATE FUNCTION public.ahead() RETURNS trigger LANGUAGE plpgsql AS $$BEGIN"
            + " PERFORM pg_catalog.set_config('search_path', 'evil, pg_catalog', false); "
            + then
            + " RETURN NEW; END$$",
        "CREATE TRIGGER ahead BEFORE INSERT ON public.mesh_journal_record"
            + " FOR EACH ROW EXECUTE FUNCTION public.ahead()");
  }

  @Test
  void aTriggerPuttingASchemaAheadOfPgCatalog_leavesTheBatchCheckWithPgCatalogsOperators()
      throws Exception {
    // Tables named in full are not enough: the operators of a statement read under the new path
    // are evil's where it comes ahead of pg_catalog. Its text = text, answering true for a prefix,
    // passed the check of the next batch, whose line the trigger had padded, and the batch was
    // acknowledged while the table held another record.
    PostgresHostileDbaTest.Opened o = PostgresHostileDbaTest.Opened.open();
    evilAheadOfPgCatalog(
        o,
        "text",
        "pg_catalog.starts_with(a, b) OR pg_catalog.starts_with(b, a)",
        "IF NEW.seq OPERATOR(pg_catalog.>=) 3 THEN"
            + " NEW.line := NEW.line OPERATOR(pg_catalog.||) '\\x20'::pg_catalog.bytea; END IF;");
    JournalException e;
    try (PostgresJournal j = o.journal()) {
      j.append(PostgresJournalTest.authorised(1)); // record 2: the path is changed
      e = (JournalException) catchThrowable(() -> j.append(PostgresJournalTest.authorised(2)));
    }
    assertThat(e).as("the padded batch acknowledged").isNotNull();
    assertThat(e.reason()).as(e.getMessage()).isEqualTo(JournalException.Reason.FAILED);
    assertThat(e.getMessage())
        .contains("not the records it was given")
        .contains("it carries trigger ahead");
    o.sql("DROP TRIGGER ahead ON public.mesh_journal_record");
    assertThat(rows(o)).as("nothing of the refused batch").isEqualTo(3);
  }

  @Test
  void aTriggerPuttingASchemaAheadOfPgCatalog_leavesTheFenceWithPgCatalogsOperators()
      throws Exception {
    // Evil's bigint = bigint answering true let the next batch through the fence at an epoch no
    // longer current: a steward taken over went on writing.
    PostgresHostileDbaTest.Opened o = PostgresHostileDbaTest.Opened.open();
    evilAheadOfPgCatalog(o, "bigint", "true", "");
    try (PostgresJournal j = o.journal()) {
      j.append(PostgresJournalTest.authorised(1)); // record 2: the path is changed
      o.sql("UPDATE public.mesh_journal_owner SET epoch = epoch + 1");
      JournalException e = o.refusedAppend();
      assertThat(e.reason()).as(e.getMessage()).isEqualTo(JournalException.Reason.FENCED);
      assertThat(e.getMessage()).contains("taken over by another steward");
    }
    o.sql("DROP TRIGGER ahead ON public.mesh_journal_record");
    assertThat(rows(o)).as("nothing written once fenced").isEqualTo(3);
  }

  /**
   * The journal's records as its own reader finds them in public, named in the URL: the owner row
   * copied into shadow would otherwise have the reader refuse to guess.
   */
  private static long rows(PostgresHostileDbaTest.Opened o) throws Exception {
    return PostgresJournal.readLines(
            PostgresLocation.parse(
                PostgresTestServer.shared().url(o.database()) + "?schema=public"),
            o.name())
        .size();
  }

  private static long count(PostgresHostileDbaTest.Opened o, String table) throws Exception {
    try (Connection c = PostgresTestServer.shared().connect(o.database());
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT count(*) FROM " + table)) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
