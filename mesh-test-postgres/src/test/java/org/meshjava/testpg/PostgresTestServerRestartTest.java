package org.meshjava.testpg;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The fixture's {@link PostgresTestServer#stop()} and {@link PostgresTestServer#start()} refuse
 * what would do nothing, and a start that fails fails at once and leaves the server stopped, to be
 * started again. Checked around a stand-in postmaster that exits at once (as one refused its port
 * or its configuration does), so no cluster is made; {@link PostgresTestServerRealRestartTest}
 * (slow) runs the same against PostgreSQL.
 */
class PostgresTestServerRestartTest {
  @TempDir Path tmp;

  /**
   * Regression: the server was marked running before it answered, so a start that failed waited out
   * the 60 s start timeout, and every later start was refused as "running already".
   */
  @Test
  void refusesWhatWouldDoNothing_andAFailedStartLeavesItStopped_toBeTriedAgain() throws Exception {
    Path data = Files.createDirectory(tmp.resolve("data"));
    Path log = tmp.resolve("pg.log");
    PostgresTestServer server =
        PostgresTestServer.launch(List.of("sh", "-c", "exit 3"), data, log, unusedPort());
    try {
      assertThatThrownBy(server::start)
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("running already");
      server.stop();
      assertThatThrownBy(server::stop)
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("stopped already");
      for (int attempt = 0; attempt < 2; attempt++) {
        long start = System.nanoTime();
        assertThatThrownBy(server::start)
            .as("start %d", attempt)
            .isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("exited");
        assertThat(System.nanoTime() - start).as("failed within 10 s").isLessThan(10_000_000_000L);
      }
      assertThatThrownBy(server::stop)
          .as("left stopped by the failed starts")
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("stopped already");
    } finally {
      server.close();
    }
    assertThat(tmp.resolve("pg.log.pid")).as("the wrapper's pid file, removed").doesNotExist();
    assertThat(data).as("the data directory, removed").doesNotExist();
  }

  /**
   * Regression: a postmaster that exited was looked up by its process id alone, and an id the
   * system had given to another process since (a shell that reaps its children as they end frees it
   * at once) read as the postmaster still starting, so the failed start waited out its 60 s. The
   * stand-in puts a live process's id, this JVM's, where the wrapper named it, then exits.
   */
  @Test
  void aStart_whosePostmasterIdNamesAnotherProcess_failsAtOnce() throws Exception {
    Path data = Files.createDirectory(tmp.resolve("data"));
    String reused =
        "until [ \"$(cat \"$MESH_PG_PID\" 2>/dev/null)\" = \"$$\" ]; do :; done;"
            + " echo "
            + ProcessHandle.current().pid()
            + " > \"$MESH_PG_PID\"; exit 3";
    PostgresTestServer server =
        PostgresTestServer.launch(
            List.of("sh", "-c", reused), data, tmp.resolve("pg.log"), unusedPort());
    try {
      server.stop();
      assertThatThrownBy(server::start)
          .isInstanceOf(IllegalStateException.class)
          .hasMessageStartingWith("the PostgreSQL test server exited:");
    } finally {
      server.close();
    }
  }

  /**
   * Regression: a failed start stops the server before it throws, and where that stop failed too
   * its error was thrown in place of the start's, so the caller read why the stop failed and never
   * why the start did. Here the postmaster exits leaving its lock file, which a killed one does.
   */
  @Test
  void aFailedStart_whoseStopFailsToo_stillSaysWhyTheStartFailed() throws Exception {
    Path data = Files.createDirectory(tmp.resolve("data"));
    PostgresTestServer server =
        PostgresTestServer.launch(
            List.of("sh", "-c", "exit 3"), data, tmp.resolve("pg.log"), unusedPort());
    try {
      server.stop();
      Files.writeString(data.resolve("postmaster.pid"), "1\n");
      IllegalStateException e = catchThrowableOfType(IllegalStateException.class, server::start);
      assertThat(e).hasMessageStartingWith("the PostgreSQL test server exited:");
      assertThat(e.getSuppressed())
          .singleElement()
          .satisfies(
              stop ->
                  assertThat(stop)
                      .hasMessageStartingWith(
                          "the PostgreSQL test server exited leaving "
                              + data.resolve("postmaster.pid")));
    } finally {
      server.close();
    }
  }

  /** A loopback port nothing listens on: a probe of it is refused at once. */
  private static int unusedPort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }
}
