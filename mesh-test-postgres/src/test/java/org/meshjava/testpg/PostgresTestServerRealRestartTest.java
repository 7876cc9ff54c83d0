package org.meshjava.testpg;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The fixture's {@link PostgresTestServer#stop()} and {@link PostgresTestServer#start()} refuse
 * what would do nothing, and a start that fails leaves the server stopped, to be started again.
 * Each case leaves the shared server running, as it found it.
 *
 * <p>Slow (a cluster made, then stopped and started several times, 17–23 s under load): {@link
 * PostgresTestServerRestartTest} checks the same rules in the default suite around a stand-in
 * postmaster.
 */
@Tag("slow")
class PostgresTestServerRealRestartTest {
  private final PostgresTestServer server = PostgresTestServer.shared();

  /**
   * Regression: the server was marked running before it answered, so a start that failed (its
   * configuration file gone while it was stopped) waited out the 60 s start timeout, and every
   * later start was refused as "running already".
   */
  @Test
  void aStartThatFails_failsAtOnce_leavingTheServerStopped_andMayBeTriedAgain() throws Exception {
    Path conf = server.dataDirectory().resolve("postgresql.conf");
    Path aside = conf.resolveSibling("postgresql.conf.aside");
    server.stop();
    try {
      Files.move(conf, aside);
      long start = System.nanoTime();
      assertThatThrownBy(server::start)
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("exited");
      assertThat(System.nanoTime() - start).as("failed within 20 s").isLessThan(20_000_000_000L);
    } finally {
      Files.move(aside, conf);
      server.start();
    }
    try (Connection c = server.connect("postgres")) {
      assertThat(c.isValid(5)).isTrue();
    }
  }

  /** Regression: a second stop was accepted silently. */
  @Test
  void stop_ofAStoppedServer_isRefused() {
    server.stop();
    try {
      assertThatThrownBy(server::stop)
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("stopped already");
    } finally {
      server.start();
    }
  }

  @Test
  void start_ofARunningServer_isRefused() {
    assertThatThrownBy(server::start)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("running already");
  }
}
