package org.meshjava.journal.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.UUID;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.meshjava.journal.JournalException;
import org.meshjava.testpg.PostgresTestServer;

/**
 * The journal's advisory lock is keyed by its schema as well as its name (SPEC.md 60.7, step 2):
 * two journals of one name in two schemas of a database are two journals, each opened by its own
 * steward, while every URL that reaches one schema, however it spells it, reaches one lock.
 */
class PostgresSchemaLockTest {
  static PostgresTestServer server;

  @BeforeAll
  static void startServer() {
    server = PostgresTestServer.shared();
  }

  static PostgresLocation at(String database, String user, String query) {
    return PostgresLocation.parse(
        "postgresql://" + user + "@127.0.0.1:" + server.port() + "/" + database + query);
  }

  static void sql(String database, String... statements) throws Exception {
    try (Connection c = server.connect(database);
        Statement s = c.createStatement()) {
      for (String statement : statements) {
        s.execute(statement);
      }
    }
  }

  static long count(String database, String table) throws Exception {
    try (Connection c = server.connect(database);
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT count(*) FROM " + table)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  static void assertLocked(PostgresLocation where, String name) {
    assertThatThrownBy(() -> PostgresJournal.open(where, name).close())
        .as("opening %s through %s", name, where)
        .isInstanceOfSatisfying(
            JournalException.class,
            e ->
                assertThat(e.reason())
                    .as(e.getMessage())
                    .isEqualTo(JournalException.Reason.LOCKED));
  }

  @Test
  void oneNameInTwoSchemas_isTwoJournals_eachOpenedByItsOwnSteward() throws Exception {
    String database = server.newDatabase();
    String tenantA = "ra" + UUID.randomUUID().toString().replace("-", "");
    String tenantB = "rb" + UUID.randomUUID().toString().replace("-", "");
    // Two tenants of one database, each with a schema of its own that the other may not read.
    sql(
        database,
        "CREATE ROLE " + tenantA + " LOGIN",
        "CREATE ROLE " + tenantB + " LOGIN",
        "CREATE SCHEMA a AUTHORIZATION " + tenantA,
        "CREATE SCHEMA b AUTHORIZATION " + tenantB,
        // B finds its schema through its role's search path, A names its own in the URL.
        "ALTER ROLE " + tenantB + " IN DATABASE " + database + " SET search_path = b");
    String name = PostgresJournalTest.newName();
    try (PostgresJournal a = PostgresJournal.open(at(database, tenantA, "?schema=a"), name);
        PostgresJournal b = PostgresJournal.open(at(database, tenantB, ""), name)) {
      a.append(PostgresJournalTest.authorised(0));
      b.append(PostgresJournalTest.authorised(1));
      b.append(PostgresJournalTest.authorised(2));
      assertThat(a.epoch()).isEqualTo(1);
      assertThat(b.epoch()).isEqualTo(1);
    }
    assertThat(count(database, "a.mesh_journal_record")).isEqualTo(2);
    assertThat(count(database, "b.mesh_journal_record")).isEqualTo(3);
  }

  @Test
  void theSameSchemaSpelledOrReachedDifferently_isOneLock() throws Exception {
    String database = server.newDatabase();
    String role = "rm" + UUID.randomUUID().toString().replace("-", "");
    sql(
        database,
        "CREATE SCHEMA \"Mesh\"",
        "CREATE ROLE " + role + " LOGIN",
        "GRANT USAGE, CREATE ON SCHEMA \"Mesh\" TO " + role,
        "GRANT USAGE, CREATE ON SCHEMA public TO " + role,
        "ALTER ROLE " + role + " IN DATABASE " + database + " SET search_path = \"Mesh\"");
    String user = PostgresTestServer.USER;

    String inPublic = PostgresJournalTest.newName();
    try (PostgresJournal held =
        PostgresJournal.open(at(database, user, "?schema=public"), inPublic)) {
      held.append(PostgresJournalTest.authorised(0));
      assertLocked(at(database, user, ""), inPublic);
      assertLocked(at(database, user, "?currentSchema=public"), inPublic);
    }
    try (PostgresJournal held = PostgresJournal.open(at(database, user, ""), inPublic)) {
      assertLocked(at(database, user, "?schema=public"), inPublic);
    }

    String inMesh = PostgresJournalTest.newName();
    sql(database, "GRANT ALL ON ALL TABLES IN SCHEMA public TO " + role);
    try (PostgresJournal held = PostgresJournal.open(at(database, user, "?schema=Mesh"), inMesh)) {
      held.append(PostgresJournalTest.authorised(0));
      sql(database, "GRANT ALL ON ALL TABLES IN SCHEMA \"Mesh\" TO " + role);
      // The driver's currentSchema is SQL: quoted, it keeps its case.
      assertLocked(at(database, user, "?currentSchema=%22Mesh%22"), inMesh);
      // Another role, its search path the schema's quoted name.
      assertLocked(at(database, role, ""), inMesh);
      assertLocked(at(database, role, "?schema=Mesh"), inMesh);
    }
    try (PostgresJournal held = PostgresJournal.open(at(database, role, ""), inMesh)) {
      assertThat(held.position().count()).isEqualTo(2);
      assertLocked(at(database, user, "?schema=Mesh"), inMesh);
    }
    assertThat(count(database, "\"Mesh\".mesh_journal_record")).isEqualTo(2);
  }
}
