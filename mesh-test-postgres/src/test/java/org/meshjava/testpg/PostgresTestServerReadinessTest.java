package org.meshjava.testpg;

import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.sql.SQLException;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The readiness probe gives up on a port that never answers: a process other than PostgreSQL may
 * take the fixture's port before the postmaster binds it.
 */
class PostgresTestServerReadinessTest {
  /**
   * Regression: the probe had no timeout, and a listener that accepts and stays silent held a
   * server's start for good (seen: a build stuck 12 minutes).
   */
  @Test
  void probe_ofASilentListener_failsWithinItsTimeout() throws Exception {
    try (ServerSocket silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      assertTimeoutPreemptively(
          Duration.ofSeconds(30),
          () ->
              assertThatThrownBy(
                      () ->
                          PostgresTestServer.probe(silent.getLocalPort(), Duration.ofMillis(200))
                              .close())
                  .isInstanceOf(SQLException.class));
    }
  }
}
