package org.meshjava.journal.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.meshjava.testpg.PostgresTestServer;

/**
 * What a location's URL makes of the connection it opens, against a real server: the user, the
 * driver parameters passed through, and the defaults the journal adds only where the URL is silent.
 */
class PostgresLocationConnectTest {
  static PostgresTestServer server;
  static String database;

  @BeforeAll
  static void startServer() {
    server = PostgresTestServer.shared();
    database = server.newDatabase();
  }

  static String base() {
    return "postgresql://127.0.0.1:" + server.port() + "/" + database;
  }

  static String show(Connection c, String sql) throws Exception {
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getString(1);
    }
  }

  @Test
  void theUser_comesFromTheUserInfo_orFromTheUserParameter() throws Exception {
    // server.url names the user before the host.
    try (Connection c = PostgresLocation.parse(server.url(database)).connect()) {
      assertThat(show(c, "SELECT current_user")).isEqualTo(PostgresTestServer.USER);
    }
    try (Connection c =
        PostgresLocation.parse(base() + "?user=" + PostgresTestServer.USER).connect()) {
      assertThat(show(c, "SELECT current_user")).isEqualTo(PostgresTestServer.USER);
    }
  }

  @Test
  void aSessionIsNamedForTheSteward_unlessTheUrlNamesItOtherwise() throws Exception {
    try (Connection c = PostgresLocation.parse(server.url(database)).connect()) {
      assertThat(show(c, "SHOW application_name")).isEqualTo("mesh-steward");
    }
    try (Connection c =
        PostgresLocation.parse(server.url(database) + "?ApplicationName=nightly-export")
            .connect()) {
      assertThat(show(c, "SHOW application_name")).isEqualTo("nightly-export");
    }
  }

  @Test
  void theSocketTimeout_isTheLeaseInWholeSecondsRoundedUp_unlessTheUrlSetsIt() throws Exception {
    // A database that stops answering must fail a call within about a lease, not hold it for ever.
    try (Connection c = PostgresLocation.parse(server.url(database) + "?lease_ms=1500").connect()) {
      assertThat(c.getNetworkTimeout()).isEqualTo(2_000);
    }
    try (Connection c = PostgresLocation.parse(server.url(database)).connect()) {
      assertThat(c.getNetworkTimeout()).isEqualTo(10_000);
    }
    try (Connection c =
        PostgresLocation.parse(server.url(database) + "?lease_ms=1500&socketTimeout=7").connect()) {
      assertThat(c.getNetworkTimeout()).isEqualTo(7_000);
    }
  }
}
