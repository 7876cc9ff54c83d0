package org.meshjava.journal.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import org.junit.jupiter.api.Test;
import org.meshjava.testpg.PostgresTestServer;

/**
 * The test server's own misuse: start() on a running server sent the wrapper a second start, whose
 * postmaster the data directory's lock turned away, and the wrapper then tracked that dead one, so
 * stop() and close() no longer reached the server that was running.
 */
class PostgresTestServerMisuseTest {
  @Test
  void startOnARunningServer_isRefused_andLeavesItServing() throws Exception {
    PostgresTestServer server = PostgresTestServer.shared();
    assertThatThrownBy(server::start)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("is running already: stop() it before start()");
    try (Connection c = server.connect("postgres")) {
      assertThat(c.isValid(5)).isTrue();
    }
  }
}
