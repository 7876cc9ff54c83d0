package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.meshjava.cli.PostgresServes.grant;
import static org.meshjava.cli.PostgresServes.payload;
import static org.meshjava.cli.PostgresServes.request;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.time.InstantSource;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.jcp.GrantChain;
import org.meshjava.jcp.Jcp;
import org.meshjava.jcp.Presentation;
import org.meshjava.journal.postgres.PostgresJournal;
import org.meshjava.journal.postgres.PostgresLocation;
import org.meshjava.steward.ServeException;
import org.meshjava.steward.Steward;
import org.meshjava.testpg.PostgresTestServer;

/**
 * A granted serve whose {@code Authorised} record's COMMIT went unanswered, at a steward on the
 * PostgreSQL journal: the server committed it, the steward refused the serve {@code NOT_RECORDED}
 * and every serve after it; restarted, it finds the record and holds the serve unresolved, its
 * presentation spent, so nothing ran and nothing can be spent twice (SPEC.md 60.7, "Faults").
 */
class PostgresUnansweredCommitTest {
  private final SigningKey stewardKey = SigningKey.generate();
  private final SigningKey caller = SigningKey.generate();
  private final Instant now = Instant.ofEpochSecond(Instant.now().getEpochSecond());

  private Steward steward(PostgresLocation at, boolean fresh) throws Exception {
    return PostgresServes.steward(
        stewardKey,
        InstantSource.fixed(now),
        PostgresJournal.open(at, Jcp.identity(stewardKey).value()),
        null,
        fresh);
  }

  private static void sql(PostgresTestServer server, String... statements) throws Exception {
    try (Connection c = server.connect("postgres");
        Statement s = c.createStatement()) {
      for (String statement : statements) {
        s.execute(statement);
      }
    }
  }

  /**
   * Waits until a new session sees {@code value}: the server has reloaded and told its sessions.
   */
  private static void awaitSetting(PostgresTestServer server, String value) throws Exception {
    while (true) {
      try (Connection c = server.connect("postgres");
          Statement s = c.createStatement();
          ResultSet rs = s.executeQuery("SHOW synchronous_standby_names")) {
        rs.next();
        if (value.equals(rs.getString(1))) {
          return;
        }
      }
      Thread.sleep(20);
    }
  }

  /**
   * Waits until a commit made now waits for the standby ({@code waiting}), or is answered at once.
   * A new session seeing the setting is not enough: whether commits wait is a flag in shared memory
   * that the server's checkpointer sets only once it has reloaded too, later under load, and a
   * commit made before then was answered at once (the serve below then succeeded: "Expecting code
   * to raise a throwable"). So a probe row is inserted and watched: seen waiting in {@code
   * SyncRep}, its wait is cancelled (the commit stands, the session goes on); a probe that
   * contradicts {@code waiting} is tried again.
   */
  private static void awaitCommitsWaiting(PostgresTestServer server, boolean waiting)
      throws Exception {
    while (true) {
      try (Connection probe = server.connect("postgres");
          Connection watch = server.connect("postgres");
          Statement ps = probe.createStatement();
          PreparedStatement seen =
              watch.prepareStatement(
                  "SELECT pg_cancel_backend(pid) FROM pg_stat_activity"
                      + " WHERE wait_event = 'SyncRep' AND pid = ?")) {
        seen.setLong(1, backendPid(ps));
        CompletableFuture<Boolean> commit =
            CompletableFuture.supplyAsync(
                () -> {
                  try {
                    return ps.execute("INSERT INTO sync_probe VALUES (1)");
                  } catch (SQLException e) {
                    throw new IllegalStateException(e);
                  }
                });
        boolean waited = false;
        while (!commit.isDone() && !waited) {
          try (ResultSet rs = seen.executeQuery()) {
            waited = rs.next();
          }
          Thread.sleep(10);
        }
        commit.get(); // answered: at once, or once its wait was cancelled
        if (waited == waiting) {
          return;
        }
      }
    }
  }

  private static long backendPid(Statement s) throws SQLException {
    try (ResultSet rs = s.executeQuery("SELECT pg_backend_pid()")) {
      rs.next();
      return rs.getLong(1);
    }
  }

  @Test
  @Timeout(300)
  void anUnansweredCommit_refusesTheServe_andARestartHoldsItUnresolved_itsPresentationSpent()
      throws Exception {
    // A server of its own: commits wait for a synchronous standby that never comes, which is how a
    // COMMIT is made to stay unanswered after the server has committed it locally.
    try (PostgresTestServer server = PostgresTestServer.start(false)) {
      PostgresLocation at =
          PostgresLocation.parse(
              server.url(server.newDatabase()) + "?lease_ms=1000&lock_wait_ms=60000");
      GrantChain chain = grant(caller, stewardKey, now, 3600);
      ServeRequest lost = request("lost");
      Presentation presented = Jcp.present(caller, chain, lost);
      sql(server, "CREATE TABLE sync_probe (n int)");
      try (Steward s = steward(at, true)) {
        sql(
            server,
            "ALTER SYSTEM SET synchronous_standby_names = 'nobody'",
            "SELECT pg_reload_conf()");
        awaitSetting(server, "nobody");
        awaitCommitsWaiting(server, true);

        assertThatThrownBy(() -> s.serve(lost, payload(lost), presented))
            .isInstanceOfSatisfying(
                ServeException.class,
                e -> assertThat(e.reason()).isEqualTo(ServeException.Reason.NOT_RECORDED));
        ServeRequest next = request("next");
        assertThatThrownBy(() -> s.serve(next, payload(next), Jcp.present(caller, chain, next)))
            .isInstanceOfSatisfying(
                ServeException.class,
                e -> assertThat(e.reason()).isEqualTo(ServeException.Reason.NOT_RECORDED));
      }
      // The commit waiting for the standby stands once its session is ended: it was committed.
      sql(
          server,
          "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE wait_event = 'SyncRep'",
          "ALTER SYSTEM RESET synchronous_standby_names",
          "SELECT pg_reload_conf()");
      awaitSetting(server, "");
      awaitCommitsWaiting(server, false);

      // Still no receipt recorded: the chain is started at 0 again, as the first start did.
      try (Steward s = steward(at, true)) {
        assertThat(s.unresolved())
            .singleElement()
            .satisfies(u -> assertThat(u.requestId()).isEqualTo(lost.id()));
        assertThatThrownBy(() -> s.serve(lost, payload(lost), presented))
            .isInstanceOf(ServeException.class);
        ServeRequest again = request("signed anew");
        s.serve(again, payload(again), Jcp.present(caller, chain, again));
        assertThat(s.head().nextSequence()).isEqualTo(1);
      }
    }
  }
}
