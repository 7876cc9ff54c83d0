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
 * A database no steward has opened a journal in yet (no tables): the tools that only read (list,
 * export, verify) find no journals and no records there, and leave it as it was, rather than
 * failing on a missing table or creating the tables as a side effect.
 */
class PostgresEmptyDatabaseTest {
  @Test
  void aDatabaseWithoutTheTables_listsNoJournals_readsNoRecords_andIsLeftWithoutTables()
      throws Exception {
    PostgresTestServer server = PostgresTestServer.shared();
    String database = server.newDatabase();
    PostgresLocation location = PostgresLocation.parse(server.url(database));
    assertThat(PostgresJournal.names(location)).isEmpty();
    assertThat(PostgresJournal.readLines(location, "did:key:nobody")).isEmpty();
    List<byte[]> streamed = new ArrayList<>();
    PostgresJournal.readLines(location, "did:key:nobody", streamed::add);
    assertThat(streamed).isEmpty();
    try (Connection c = server.connect(database);
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery("SELECT count(*) FROM pg_tables WHERE tablename LIKE 'mesh_journal%'")) {
      rs.next();
      assertThat(rs.getLong(1)).isZero();
    }
  }
}
