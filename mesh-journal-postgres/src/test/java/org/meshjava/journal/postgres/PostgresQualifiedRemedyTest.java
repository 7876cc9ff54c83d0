package org.meshjava.journal.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.Statement;
import org.junit.jupiter.api.Test;
import org.meshjava.journal.JournalException;
import org.meshjava.testpg.PostgresTestServer;

/**
 * The statements a refusal tells the operator to run (SPEC.md 60.7) name the journal's tables with
 * their schema. They named the table alone, so pasted into psql, whose path is {@code public}, for
 * a journal kept in another schema (a tenant's, {@code schema=} in the URL) beside tables of the
 * same names in {@code public}, they granted or disabled on the wrong table, and the steward was
 * refused again. The schema here has capitals, a space and a quote, each of which must be quoted.
 */
class PostgresQualifiedRemedyTest {
  private static final String SCHEMA = "Tenant \"A\"";
  private static final String QUOTED = "\"Tenant \"\"A\"\"\"";

  /** A journal in {@link #SCHEMA}, and another in {@code public}, in a new database. */
  private record Tenant(String database, String name) {
    static Tenant make() throws Exception {
      PostgresTestServer server = PostgresTestServer.shared();
      Tenant t = new Tenant(server.newDatabase(), PostgresJournalTest.newName());
      t.sql("CREATE SCHEMA " + QUOTED);
      try (PostgresJournal j = PostgresJournal.open(t.at(PostgresTestServer.USER), t.name)) {
        j.append(PostgresJournalTest.authorised(0));
      }
      // Another journal, whose tables are public's.
      PostgresJournal.open(PostgresLocation.parse(server.url(t.database)), "other").close();
      return t;
    }

    PostgresLocation at(String role) {
      return PostgresLocation.parse(
          StewardRoleJournal.url(role, database)
              + "?schema="
              + URLEncoder.encode(SCHEMA, StandardCharsets.UTF_8).replace("+", "%20"));
    }

    /** Runs {@code statements} as the superuser in a session whose path is {@code public}. */
    void sql(String... statements) throws Exception {
      try (Connection c = PostgresTestServer.shared().connect(database);
          Statement s = c.createStatement()) {
        for (String statement : statements) {
          s.execute(statement);
        }
      }
    }

    JournalException refusedOpening(String role) {
      Throwable t = catchThrowable(() -> PostgresJournal.open(at(role), name).close());
      assertThat(t).isInstanceOf(JournalException.class);
      JournalException e = (JournalException) t;
      assertThat(e.reason()).as(e.getMessage()).isEqualTo(JournalException.Reason.IO);
      return e;
    }
  }

  @Test
  void theGrantNamed_reachesTheJournalsSchema_fromASessionInPublic() throws Exception {
    Tenant t = Tenant.make();
    t.sql(
        "CREATE ROLE \"Tenant Steward\" LOGIN",
        "GRANT USAGE ON SCHEMA " + QUOTED + " TO \"Tenant Steward\"",
        "GRANT SELECT, INSERT, UPDATE ON " + QUOTED + ".mesh_journal_owner TO \"Tenant Steward\"",
        "GRANT SELECT ON " + QUOTED + ".mesh_journal_record TO \"Tenant Steward\"");

    String message = t.refusedOpening("Tenant Steward").getMessage();
    assertThat(message)
        .contains("GRANT INSERT ON " + QUOTED + ".mesh_journal_record TO \"Tenant Steward\"");

    t.sql(message.substring(message.indexOf("GRANT INSERT")));
    try (PostgresJournal j = PostgresJournal.open(t.at("Tenant Steward"), t.name())) {
      assertThat(j.epoch()).isEqualTo(2);
      j.append(PostgresJournalTest.authorised(1));
    }
  }

  @Test
  void theTriggerRemedyNamed_reachesTheJournalsSchema_fromASessionInPublic() throws Exception {
    Tenant t = Tenant.make();
    t.sql(
        "CREATE FUNCTION "
            + QUOTED
            + ".blank() RETURNS trigger LANGUAGE plpgsql AS"
            + " $$BEGIN RETURN NULL; END$$",
        "CREATE TRIGGER \"Blank Er\" AFTER INSERT ON "
            + QUOTED
            + ".mesh_journal_record FOR EACH ROW EXECUTE FUNCTION "
            + QUOTED
            + ".blank()",
        "CREATE TRIGGER \"Blank Er\" AFTER INSERT ON public.mesh_journal_record"
            + " FOR EACH ROW EXECUTE FUNCTION "
            + QUOTED
            + ".blank()");

    String message = t.refusedOpening(PostgresTestServer.USER).getMessage();
    assertThat(message)
        .contains("ALTER TABLE " + QUOTED + ".mesh_journal_record DISABLE TRIGGER \"Blank Er\"");

    t.sql(
        message.substring(
            message.indexOf("Drop it or disable it (") + "Drop it or disable it (".length(),
            message.indexOf("), then start the steward")));
    try (PostgresJournal j = PostgresJournal.open(t.at(PostgresTestServer.USER), t.name())) {
      assertThat(j.epoch()).isEqualTo(2);
    }
  }
}
