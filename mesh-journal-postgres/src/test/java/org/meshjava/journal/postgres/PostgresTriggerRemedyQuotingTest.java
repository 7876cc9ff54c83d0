package org.meshjava.journal.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.meshjava.testpg.PostgresTestServer;

/**
 * The statement a refusal gives to take a trigger off ({@link JournalSchema.Carried#remedy}) is
 * quoted on the client, always in double quotes with each quote doubled. Run as the operator runs
 * it, it reaches the trigger named, however hostile the name: a quote in it, a keyword, capitals
 * and spaces, letters outside ASCII, and a name the server cut to its first 63 bytes (which the
 * catalog then holds, and the refusal quotes).
 */
class PostgresTriggerRemedyQuotingTest {
  @Test
  void eachRemedy_runAsGiven_disablesTheTriggerItNames() throws Exception {
    PostgresTestServer server = PostgresTestServer.shared();
    String db = PostgresSnapshotStoreTest.databaseWithASnapshot(server);
    PostgresLocation location = PostgresLocation.parse(server.url(db));
    List<String> names =
        List.of(
            "a\"b",
            "\"",
            "select",
            "Mixed Case name",
            "ünïcödé ✓ 名前",
            "trailing space ",
            // 70 bytes: the server keeps the first 63 (on a character's boundary).
            "é".repeat(35));
    try (Connection c = server.connect(db);
        Statement s = c.createStatement()) {
      s.execute(
          "CREATE FUNCTION keep() RETURNS trigger LANGUAGE plpgsql AS $$BEGIN RETURN NEW; END$$");
      for (String name : names) {
        s.execute(
            "CREATE TRIGGER "
                + JournalTables.quotedIdentifier(name)
                + " BEFORE INSERT ON mesh_journal_snapshot FOR EACH ROW EXECUTE FUNCTION keep()");
      }
      List<String> remedies = new ArrayList<>();
      List<String> held = new ArrayList<>();
      try (ResultSet rs =
          s.executeQuery(
              "SELECT tgname, tgtype FROM pg_trigger"
                  + " WHERE tgrelid = 'mesh_journal_snapshot'::regclass ORDER BY tgname")) {
        while (rs.next()) {
          held.add(rs.getString(1));
          remedies.add(
              new JournalSchema.Carried(rs.getString(1), rs.getInt(2))
                  .remedy("public.mesh_journal_snapshot"));
        }
      }
      assertThat(held).hasSize(names.size()).contains("é".repeat(31));
      for (String remedy : remedies) {
        s.execute(remedy);
      }
      try (ResultSet rs =
          s.executeQuery(
              "SELECT count(*) FROM pg_trigger WHERE tgrelid = 'mesh_journal_snapshot'::regclass"
                  + " AND tgenabled <> 'D'")) {
        rs.next();
        assertThat(rs.getLong(1)).as("triggers left enabled").isZero();
      }
    }
  }
}
