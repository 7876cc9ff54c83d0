package org.meshjava.journal.postgres;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * The settings a journal's session was given as it opened (the pinned {@code search_path}, the
 * raised timeouts, {@code lock_timeout}, {@code synchronous_commit}, {@code client_min_messages}),
 * as the server held them once they were set, so that each batch can set them again.
 *
 * <p>They are the session's, and the journal never reconnects: a {@code RESET ALL} run on the
 * session (a trigger's, or a pooler's {@code DISCARD ALL} between transactions) put every one of
 * them back to the role's or the database's value for the rest of the journal's life, a {@code
 * synchronous_commit = off} acknowledging batches the server could still lose among them. {@link
 * #around} sets them again in the batch's own request, ahead of its insert and after it: no round
 * trip more (SPEC.md section 60.7, "Faults"). Immutable.
 */
final class SessionSettings {
  /**
   * What is set again, each where the server has it (PostgreSQL 17's {@code transaction_timeout}).
   */
  private static final String[] NAMES = {
    "search_path",
    "statement_timeout",
    "lock_timeout",
    "idle_in_transaction_session_timeout",
    "idle_session_timeout",
    "transaction_timeout",
    "client_min_messages",
    "synchronous_commit"
  };

  /**
   * Sets the two array parameters' settings, names and values, for the session (not the transaction
   * alone, so a heartbeat after the batch has them too). Session-wide yet set in the batch's
   * transaction: it takes effect at once, for the statement after it and the COMMIT.
   */
  private static final String SET_AGAIN =
      "SELECT pg_catalog.count(pg_catalog.set_config(s.name, s.value, false))"
          + " FROM ROWS FROM (pg_catalog.unnest(?::pg_catalog.text[]),"
          + " pg_catalog.unnest(?::pg_catalog.text[])) AS s(name, value)";

  /**
   * {@code statement} with the settings set again before it and after it, in one request: before,
   * so that it runs under them after a {@code RESET ALL} since the last batch; after, so that the
   * {@code COMMIT} does too where something run by the statement itself (a {@code BEFORE INSERT}
   * trigger's {@code RESET ALL} or {@code SET synchronous_commit = off}, a column default's {@code
   * set_config}) changed them: set only before, that batch was acknowledged under {@code off},
   * before the server's disk had it. Its first result is the setting's, the statement's the second
   * (parameters from 3 on, see {@link #bind}), then the setting's again. No space after a
   * semicolon: the driver sends each statement from there on, and the statement's text in {@code
   * pg_stat_activity} would begin with a space, missed by whoever looks for it by how it begins.
   */
  static String around(String statement) {
    return SET_AGAIN + ";" + statement + ";" + SET_AGAIN;
  }

  private final String[] names;
  private final String[] values;

  private SessionSettings(List<String> names, List<String> values) {
    this.names = names.toArray(new String[0]);
    this.values = values.toArray(new String[0]);
  }

  /** The settings as {@code c}'s session holds them now. */
  static SessionSettings of(Connection c) throws SQLException {
    Array asked = c.createArrayOf("text", NAMES);
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT n, pg_catalog.current_setting(n, true)"
                + " FROM pg_catalog.unnest(?::pg_catalog.text[]) AS n")) {
      ps.setArray(1, asked);
      List<String> names = new ArrayList<>();
      List<String> values = new ArrayList<>();
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          String value = rs.getString(2);
          if (value != null) {
            names.add(rs.getString(1));
            values.add(value);
          }
        }
      }
      return new SessionSettings(names, values);
    } finally {
      asked.free();
    }
  }

  /**
   * Binds the settings' parameters of {@link #around}: 1 and 2, and the two after the statement's
   * {@code statementParameters}.
   *
   * @return the number of parameters bound ahead of the statement's
   */
  int bind(Connection c, PreparedStatement ps, int statementParameters) throws SQLException {
    Array asked = c.createArrayOf("text", names);
    Array given = c.createArrayOf("text", values);
    ps.setArray(1, asked);
    ps.setArray(2, given);
    ps.setArray(statementParameters + 3, asked);
    ps.setArray(statementParameters + 4, given);
    return 2;
  }
}
