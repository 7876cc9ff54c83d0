package org.meshjava.journal.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.meshjava.journal.JournalException;

/**
 * An operator in the schema the session is pinned to, made to look like one of {@code pg_catalog}'s
 * (SPEC.md 60.7, "Schema"). {@code pg_catalog} is searched first, so an operator of the same
 * argument types there hides one of the journal's schema; but one whose argument types match a
 * statement's exactly, where {@code pg_catalog}'s needs a conversion, is chosen over it. The
 * statements that look for the journal's owner row in the other schemas used two such: {@code
 * journal = ?} (the driver sends a string as {@code varchar}; {@code pg_catalog} has only {@code
 * text = text}) and {@code nspname NOT LIKE 'pg\_%'} ({@code pg_catalog} has only {@code name !~~
 * text}). An operator answering false to either hid the journal in public from a role whose search
 * path put the schema holding it first: the journal started afresh there, every grant's budget
 * back, and the operator's function ran as the steward's role.
 */
class PostgresLookAlikeOperatorTest {
  @BeforeAll
  static void startServer() {
    PostgresSearchPathTest.startServer();
    PostgresHostileDbaTest.startServer();
  }

  @Test
  void anEqualityOnTextAndVarchar_inTheSessionsSchema_doesNotHideTheJournalInPublic()
      throws Exception {
    refusedMisplaced("text", "varchar", "=");
  }

  @Test
  void aNotLikeOnNames_inTheSessionsSchema_doesNotHideTheOtherSchemas() throws Exception {
    refusedMisplaced("name", "name", "!~~");
  }

  @Test
  void anEqualityOnTypes_inTheJournalsSchema_doesNotPassAColumnAlteredToText() throws Exception {
    // pg_catalog has no regtype = regtype (it compares them as oids): the fenced insert's check of
    // its columns' types took this one, and the line went in as text.
    refusedAlteredToText(
        "CREATE FUNCTION always(regtype, regtype) RETURNS boolean LANGUAGE sql IMMUTABLE"
            + " AS 'SELECT true'",
        "CREATE OPERATOR = (LEFTARG = regtype, RIGHTARG = regtype, FUNCTION = always)");
  }

  @Test
  void aTypeOfFunctionOnText_inTheJournalsSchema_doesNotPassAColumnAlteredToText()
      throws Exception {
    // pg_catalog's pg_typeof takes "any": one taking text, in the journal's schema, matches the
    // altered column exactly and was chosen over it, answering bytea. The line's text (the bytes in
    // hex) then also equals the given line as text, so nothing else saw the change.
    refusedAlteredToText(
        "CREATE FUNCTION pg_typeof(text) RETURNS regtype LANGUAGE sql IMMUTABLE"
            + " AS 'SELECT ''bytea''::regtype'");
  }

  @Test
  void anOidEqualsRegclass_inTheJournalsSchema_doesNotLetACopyOpen_asARoleNotOwningTheTables()
      throws Exception {
    StewardRoleJournal copy = StewardRoleJournal.of(1);
    // pg_catalog compares oid with oid only: this one was chosen for the look at the owner table's
    // columns, which then seemed absent; the role may not add them, so the opening went on without
    // them and without the check that the journal was written in this database.
    copy.sql(
        NEVER_OID_REGCLASS,
        "CREATE OPERATOR = (LEFTARG = oid, RIGHTARG = regclass, FUNCTION = never)",
        "UPDATE mesh_journal_owner SET database_oid = database_oid + 1");
    Throwable t = catchThrowable(() -> PostgresJournal.open(copy.asRole(), copy.name()).close());
    assertThat(t).isInstanceOf(JournalException.class);
    assertThat(((JournalException) t).reason())
        .as(t.getMessage())
        .isEqualTo(JournalException.Reason.MISPLACED);
  }

  @Test
  void lookAlikesInTheJournalsSchema_neitherHideNorRenameTheTriggerARefusalNames()
      throws Exception {
    PostgresHostileDbaTest.Opened o = PostgresHostileDbaTest.Opened.open();
    try (PostgresJournal j = o.journal()) {
      JournalException e =
          o.failedAfter(
              NEVER_OID_REGCLASS,
              "CREATE OPERATOR = (LEFTARG = oid, RIGHTARG = regclass, FUNCTION = never)",
              "CREATE FUNCTION innocent(text, name) RETURNS text LANGUAGE sql IMMUTABLE"
                  + " AS 'SELECT ''trigger innocent'''",
              "CREATE OPERATOR || (LEFTARG = text, RIGHTARG = name, FUNCTION = innocent)",
              "CREATE FUNCTION swallow() RETURNS trigger LANGUAGE plpgsql AS"
                  + " $$BEGIN RETURN NULL; END$$",
              "CREATE TRIGGER swallower BEFORE INSERT ON mesh_journal_record"
                  + " FOR EACH ROW EXECUTE FUNCTION swallow()");
      assertThat(e.getMessage())
          .contains("it carries trigger swallower")
          .doesNotContain("innocent");
    }
  }

  /** A function answering false to every oid and regclass, for a look-alike {@code =}. */
  private static final String NEVER_OID_REGCLASS =
      "CREATE FUNCTION never(oid, regclass) RETURNS boolean LANGUAGE sql IMMUTABLE"
          + " AS 'SELECT false'";

  /**
   * A journal of two records, in whose schema the DBA makes {@code lookAlike} and then alters the
   * line column to text: the next append is refused FAILED, naming the column's type, and nothing
   * is stored as text.
   */
  private static void refusedAlteredToText(String... lookAlike) throws Exception {
    PostgresHostileDbaTest.Opened o = PostgresHostileDbaTest.Opened.open();
    try (PostgresJournal j = o.journal()) {
      o.sql(lookAlike);
      JournalException e =
          o.failedAfter(
              "ALTER TABLE mesh_journal_record ALTER COLUMN line TYPE text"
                  + " USING encode(line, 'escape')");
      assertThat(e.getMessage()).contains("no longer has the type the journal created");
    }
    assertThat(o.rows()).as("nothing stored as text").isEqualTo(2);
  }

  /**
   * A journal in public, a role whose search path puts schema shadow first, and in shadow an
   * operator {@code operator} on ({@code left}, {@code right}) that always answers false: opening
   * as the role is refused MISPLACED, and nothing is created or written in shadow.
   */
  private static void refusedMisplaced(String left, String right, String operator)
      throws Exception {
    String name = PostgresJournalTest.newName();
    PostgresSearchPathTest.Setup setup =
        PostgresSearchPathTest.journalInPublic_andARoleThatLooksInShadowFirst(name);
    setup.sql(
        "CREATE FUNCTION shadow.never("
            + left
            + ", "
            + right
            + ") RETURNS boolean LANGUAGE sql IMMUTABLE AS 'SELECT false'",
        "CREATE OPERATOR shadow."
            + operator
            + " (LEFTARG = "
            + left
            + ", RIGHTARG = "
            + right
            + ", FUNCTION = shadow.never)");

    Throwable t =
        catchThrowable(() -> PostgresJournal.open(setup.as(setup.role(), ""), name).close());
    assertThat(t).isInstanceOf(JournalException.class);
    assertThat(((JournalException) t).reason())
        .as(t.getMessage())
        .isEqualTo(JournalException.Reason.MISPLACED);
    assertThat(setup.count("shadow.mesh_journal_owner")).as("nothing raised there").isZero();
    assertThat(setup.count("shadow.mesh_journal_record")).isZero();
  }
}
