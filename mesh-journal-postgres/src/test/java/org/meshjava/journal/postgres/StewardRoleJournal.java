package org.meshjava.journal.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.Statement;
import org.meshjava.testpg.PostgresTestServer;

/**
 * A journal of a few records written by the superuser, in a database of its own, and a login role
 * of that database, neither a superuser nor the tables' owner, granted what a steward needs on the
 * journal's tables: a DBA's steward role, for the tests of what such a DBA then does to it.
 *
 * @param database the journal's database, on the shared test server
 * @param name the journal's name
 * @param role the steward's role, as the catalog holds it (any characters)
 */
record StewardRoleJournal(String database, String name, String role) {
  /** A journal of {@code records} records and a role named {@code role} for it. */
  static StewardRoleJournal of(int records, String role) throws Exception {
    PostgresTestServer server = PostgresTestServer.shared();
    String database = server.newDatabase();
    String name = PostgresJournalTest.newName();
    try (PostgresJournal j =
        PostgresJournal.open(PostgresLocation.parse(server.url(database)), name)) {
      for (int i = 0; i < records; i++) {
        j.append(PostgresJournalTest.authorised(i));
      }
    }
    StewardRoleJournal made = new StewardRoleJournal(database, name, role);
    String quoted = made.quotedRole();
    made.sql(
        "CREATE ROLE " + quoted + " LOGIN",
        "GRANT SELECT, INSERT, UPDATE ON mesh_journal_owner, mesh_journal_record,"
            + " mesh_journal_snapshot TO "
            + quoted);
    return made;
  }

  /** A journal of {@code records} records and a role of a new plain name for it. */
  static StewardRoleJournal of(int records) throws Exception {
    return of(records, "r" + Long.toHexString(System.nanoTime()));
  }

  /** The journal's database reached as the role. */
  PostgresLocation asRole() {
    return asRole("");
  }

  /** The journal's database reached as the role, the URL ending in {@code query}. */
  PostgresLocation asRole(String query) {
    return PostgresLocation.parse(url(role, database) + query);
  }

  /** A URL of {@code database} on the shared test server, reached as {@code role} (any name). */
  static String url(String role, String database) {
    return "postgresql://"
        + URLEncoder.encode(role, StandardCharsets.UTF_8).replace("+", "%20")
        + "@127.0.0.1:"
        + PostgresTestServer.shared().port()
        + "/"
        + database;
  }

  /**
   * Opens the journal as the role (its epoch then 2), appends a record, and saves two snapshots
   * (the second replacing nothing and keeping the first): what a steward does with its tables.
   */
  void opensAppendsAndSaves() throws Exception {
    opensAppendsAndSaves(asRole());
  }

  /** As {@link #opensAppendsAndSaves()}, at {@code at}. */
  void opensAppendsAndSaves(PostgresLocation at) throws Exception {
    try (PostgresJournal j = PostgresJournal.open(at, name)) {
      assertThat(j.epoch()).isEqualTo(2);
      long before = j.position().count();
      j.append(PostgresJournalTest.authorised(1));
      assertThat(j.position().count()).isEqualTo(before + 1);
    }
    PostgresSnapshotStore store = PostgresSnapshotStore.of(at, name);
    store.save(PostgresSnapshotStoreTest.at(3));
    store.save(PostgresSnapshotStoreTest.at(4));
    assertThat(store.latestHeader().orElseThrow().position().count()).isEqualTo(4);
  }

  /**
   * Takes every privilege on the journal's tables from the role and grants it exactly the columns
   * the journal uses (SPEC.md 60.7): {@code UPDATE} on the owner table's epoch and home columns
   * alone and on the snapshot alone, {@code DELETE} on the snapshot table, nothing table-wide else.
   */
  void grantOnlyTheColumnsTheJournalUses() throws Exception {
    String quoted = quotedRole();
    sql(
        "REVOKE ALL ON mesh_journal_owner, mesh_journal_record, mesh_journal_snapshot FROM "
            + quoted,
        "GRANT SELECT (journal, epoch, cluster_id, database_oid),"
            + " INSERT (journal, epoch, cluster_id, database_oid),"
            + " UPDATE (epoch, cluster_id, database_oid) ON mesh_journal_owner TO "
            + quoted,
        "GRANT SELECT (journal, seq, line), INSERT (journal, seq, line) ON mesh_journal_record TO "
            + quoted,
        "GRANT SELECT (journal, count, snapshot), INSERT (journal, count, snapshot),"
            + " UPDATE (snapshot), DELETE ON mesh_journal_snapshot TO "
            + quoted);
  }

  /** The role's name as an SQL identifier. */
  String quotedRole() {
    return JournalTables.quotedIdentifier(role);
  }

  /** Runs {@code statements} in the journal's database as the superuser, as the DBA. */
  void sql(String... statements) throws Exception {
    try (Connection c = PostgresTestServer.shared().connect(database);
        Statement s = c.createStatement()) {
      for (String statement : statements) {
        s.execute(statement);
      }
    }
  }
}
