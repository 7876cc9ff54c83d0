package org.meshjava.journal.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.UUID;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.meshjava.journal.JournalException;
import org.meshjava.testpg.PostgresTestServer;

/**
 * The journal's tables are found in one schema, whatever a role's or the database's {@code
 * search_path} says (SPEC.md 60.7, "Schema"). Before, a role whose search path put another schema
 * first, holding tables of the same names, opened those: the journal started afresh there, and
 * every grant's budget came back.
 */
class PostgresSearchPathTest {
  static PostgresTestServer server;

  @BeforeAll
  static void startServer() {
    server = PostgresTestServer.shared();
  }

  /** A database, and a role whose search path puts schema {@code shadow} ahead of public. */
  record Setup(String database, String role) {
    PostgresLocation as(String user, String query) {
      return PostgresLocation.parse(
          "postgresql://" + user + "@127.0.0.1:" + server.port() + "/" + database + query);
    }

    long count(String table) throws Exception {
      try (Connection c = server.connect(database);
          Statement s = c.createStatement();
          ResultSet rs = s.executeQuery("SELECT count(*) FROM " + table)) {
        rs.next();
        return rs.getLong(1);
      }
    }

    void sql(String... statements) throws Exception {
      try (Connection c = server.connect(database);
          Statement s = c.createStatement()) {
        for (String statement : statements) {
          s.execute(statement);
        }
      }
    }
  }

  /**
   * A journal of four records (a grant chain and three decisions) written in public by the
   * superuser; then a role that may use them, given a schema of its own ahead of public holding
   * empty tables of the same names.
   */
  static Setup journalInPublic_andARoleThatLooksInShadowFirst(String name) throws Exception {
    String database = server.newDatabase();
    String role = "r" + UUID.randomUUID().toString().replace("-", "");
    Setup setup = new Setup(database, role);
    try (PostgresJournal j = PostgresJournal.open(setup.as(PostgresTestServer.USER, ""), name)) {
      for (int i = 0; i < 3; i++) {
        j.append(PostgresJournalTest.authorised(i));
      }
    }
    setup.sql(
        "CREATE ROLE " + role + " LOGIN",
        "GRANT USAGE, CREATE ON SCHEMA public TO " + role,
        "GRANT ALL ON ALL TABLES IN SCHEMA public TO " + role,
        "CREATE SCHEMA shadow AUTHORIZATION " + role,
        "CREATE TABLE shadow.mesh_journal_owner (LIKE public.mesh_journal_owner INCLUDING ALL)",
        "CREATE TABLE shadow.mesh_journal_record (LIKE public.mesh_journal_record INCLUDING ALL)",
        "CREATE TABLE shadow.mesh_journal_snapshot"
            + " (LIKE public.mesh_journal_snapshot INCLUDING ALL)",
        "GRANT ALL ON ALL TABLES IN SCHEMA shadow TO " + role,
        "ALTER ROLE " + role + " IN DATABASE " + database + " SET search_path = shadow, public");
    return setup;
  }

  @Test
  void aRoleWhoseSearchPathPutsAnotherSchemaFirst_isRefusedMisplaced_andWritesNothingThere()
      throws Exception {
    String name = PostgresJournalTest.newName();
    Setup setup = journalInPublic_andARoleThatLooksInShadowFirst(name);
    PostgresLocation shadowed = setup.as(setup.role(), "");

    Throwable t = catchThrowable(() -> PostgresJournal.open(shadowed, name).close());
    assertThat(t).isInstanceOf(JournalException.class);
    JournalException e = (JournalException) t;
    assertThat(e.reason()).as(e.getMessage()).isEqualTo(JournalException.Reason.MISPLACED);
    assertThat(e.getMessage())
        .contains("no owner row in schema shadow")
        .contains("one in schema public")
        .contains("?schema=public");
    assertThat(setup.count("shadow.mesh_journal_owner")).as("nothing raised there").isZero();
    assertThat(setup.count("shadow.mesh_journal_record")).isZero();
    // The tools read the same place, and refuse in the same words rather than read nothing.
    assertThatThrownBy(() -> PostgresJournal.readLines(shadowed, name))
        .isInstanceOfSatisfying(
            JournalException.class,
            r -> assertThat(r.reason()).isEqualTo(JournalException.Reason.MISPLACED));

    // Named in the URL, the journal's schema is the one used, whatever the role's path says.
    try (PostgresJournal j = PostgresJournal.open(setup.as(setup.role(), "?schema=public"), name)) {
      assertThat(j.position().count()).isEqualTo(4);
      assertThat(j.epoch()).isEqualTo(2);
      j.append(PostgresJournalTest.authorised(3));
    }
    assertThat(setup.count("public.mesh_journal_record")).isEqualTo(5);
    assertThat(setup.count("shadow.mesh_journal_record")).isZero();
    assertThat(setup.count("shadow.mesh_journal_owner")).isZero();
  }

  @Test
  void anOwnerRowInAnotherSchemaBesideTheSessionsOwn_isAGuess_andRefusedUntilTheUrlNamesOne()
      throws Exception {
    String name = PostgresJournalTest.newName();
    Setup setup = journalInPublic_andARoleThatLooksInShadowFirst(name);
    // A row of the journal's name in the shadowing schema, with none of its records.
    setup.sql("INSERT INTO shadow.mesh_journal_owner (journal, epoch) VALUES ('" + name + "', 7)");

    Throwable t = catchThrowable(() -> PostgresJournal.open(setup.as(setup.role(), ""), name));
    assertThat(t).isInstanceOf(JournalException.class);
    assertThat(((JournalException) t).reason()).isEqualTo(JournalException.Reason.MISPLACED);
    assertThat(t.getMessage()).contains("which holds the journal is a guess");
    assertThat(setup.count("shadow.mesh_journal_record")).isZero();
    try (PostgresJournal j = PostgresJournal.open(setup.as(setup.role(), "?schema=public"), name)) {
      assertThat(j.position().count()).isEqualTo(4);
    }
  }

  @Test
  void aSchemaTheUrlNamesThatDoesNotExist_isNamed_andNothingIsCreated() throws Exception {
    String name = PostgresJournalTest.newName();
    String database = server.newDatabase();
    PostgresLocation at = PostgresLocation.parse(server.url(database) + "?schema=" + "nosuch");
    assertThatThrownBy(() -> PostgresJournal.open(at, name))
        .isInstanceOfSatisfying(
            JournalException.class,
            e -> {
              assertThat(e.reason()).isEqualTo(JournalException.Reason.IO);
              assertThat(e.getMessage())
                  .contains("schema nosuch (schema= in the URL) does not exist in database");
            });
    try (Connection c = server.connect(database);
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT to_regclass('public.mesh_journal_record')")) {
      rs.next();
      assertThat(rs.getString(1)).as("no table created in public instead").isNull();
    }
  }

  @Test
  void aSchemaWithAQuoteInItsName_isQuoted_andHoldsTheTables() throws Exception {
    String database = server.newDatabase();
    try (Connection c = server.connect(database);
        Statement s = c.createStatement()) {
      s.execute("CREATE SCHEMA \"Mesh \"\"j\"\"\"");
    }
    String name = PostgresJournalTest.newName();
    PostgresLocation at = PostgresLocation.parse(server.url(database) + "?schema=Mesh%20%22j%22");
    assertThat(at.schema()).hasValue("Mesh \"j\"");
    try (PostgresJournal j = PostgresJournal.open(at, name)) {
      j.append(PostgresJournalTest.authorised(0));
    }
    try (Connection c = server.connect(database);
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery("SELECT count(*) FROM \"Mesh \"\"j\"\"\".mesh_journal_record")) {
      rs.next();
      assertThat(rs.getLong(1)).isEqualTo(2);
    }
    assertThat(PostgresJournal.names(at)).containsExactly(name);
    assertThat(PostgresJournal.names(PostgresLocation.parse(server.url(database)))).isEmpty();
  }

  @Test
  void parse_takesTheSchema_namesItInTheText_andRefusesOneTheServerWouldCut() {
    PostgresLocation l = PostgresLocation.parse("postgresql://h/d?schema=mesh&lease_ms=2000");
    assertThat(l.schema()).hasValue("mesh");
    assertThat(l.toString()).isEqualTo("postgresql://h:5432/d?schema=mesh");
    assertThat(l.withLease(java.time.Duration.ofSeconds(5)).schema()).hasValue("mesh");
    assertThat(PostgresLocation.parse("postgresql://h/d").schema()).isEmpty();
    assertThat(PostgresLocation.parse("postgresql://h/d?schema=" + "s".repeat(63)).schema())
        .isPresent();
    assertThatThrownBy(() -> PostgresLocation.parse("postgresql://h/d?schema=" + "s".repeat(64)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("schema is 1 to 63 bytes");
    assertThatThrownBy(() -> PostgresLocation.parse("postgresql://h/d?schema="))
        .hasMessageContaining("schema is 1 to 63 bytes");
  }
}
