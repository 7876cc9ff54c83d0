package org.meshjava.journal.postgres;

import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Properties;
import org.jspecify.annotations.Nullable;

/**
 * Where a PostgreSQL journal lives: a database reached by a URL, {@code
 * postgresql://[user[:password]@]host[:port]/database[?parameter=value&…]} (the libpq form; {@code
 * postgres://} and {@code jdbc:postgresql://} are taken too), plus two settings of the journal's
 * own, given as parameters of the same URL:
 *
 * <ul>
 *   <li>{@code lease_ms} (default 10000; 1000 to 2147483647, the longest timeout PostgreSQL holds,
 *       since the sessions' timeouts are set from it): how long the database keeps the session of a
 *       steward that has stopped talking to it (paused, partitioned) before ending it, which
 *       releases the journal to a successor. A live steward talks to it at least every third of
 *       this.
 *   <li>{@code lock_wait_ms} (default 0): how long opening waits for another steward to give the
 *       journal up before refusing with {@code LOCKED}.
 *   <li>{@code lock_timeout_ms} (default half the lease; at least {@link #MIN_LOCK_TIMEOUT_MS},
 *       less than the lease, and where {@code statement_timeout_ms} is not given at least 2 ms
 *       below the lease and a shorter {@code socketTimeout}, so that the default statement limit
 *       has a whole millisecond between them): how long any one of the journal's statements waits
 *       for a table or row lock another session holds (a DBA's {@code LOCK TABLE}, an index being
 *       built) before it is refused, naming that session. It is the journal's sessions' {@code
 *       lock_timeout}, whatever a role or the database sets, so a role with none cannot hold a
 *       serve for as long as the DBA's transaction lasts.
 *   <li>{@code statement_timeout_ms} (default midway between the lock timeout and the lease, or the
 *       URL's {@code socketTimeout} where that is shorter; 0 for none, else more than the lock
 *       timeout and less than the lease and that socket timeout): how long any one of the journal's
 *       statements runs before the server cancels it. It bounds what no lock names: a trigger or
 *       function on the tables that sleeps or loops, a server too slow to answer. Above the lock
 *       timeout, so that a statement waiting for a lock is refused naming the session that holds
 *       it; below the lease and the driver's socket timeout, so that the server's cancel, which
 *       says why and leaves the session usable, comes first. Where the socket timeout is lifted
 *       ({@code socketTimeout=0}) it is the one limit left.
 *   <li>{@code schema} (default: the session's current schema as the server sets it up, {@code
 *       public} unless a role or database setting, or the driver's {@code currentSchema}, says
 *       otherwise; never the session's temporary schema, which a path naming {@code pg_temp} first
 *       would make current): the schema holding the journal's tables.
 * </ul>
 *
 * Every connection pins its {@code search_path} to that one schema (then {@code pg_temp}, which the
 * server would otherwise search first) as soon as it is made, so a schema a role or database
 * setting puts ahead of it later, or a temporary table left in the session, holding tables of the
 * same names, cannot take the journal's statements elsewhere (SPEC.md section 60.7, "Schema"), and
 * raises a role's or the database's {@code idle_in_transaction_session_timeout} below the lease to
 * the lease, and {@code statement_timeout} where there is none or a shorter one to {@code
 * statement_timeout_ms}, and sets {@code lock_timeout} to {@code lock_timeout_ms}, in the same
 * statement (SPEC.md section 60.7, "Faults"). That includes one this URL's own {@code options}
 * parameter sets ({@code options=-c statement_timeout=100}): a shorter limit cancels a batch and
 * fails the journal, whoever set it; to give the journal a limit, give it {@code
 * statement_timeout_ms}. Its {@code idle_session_timeout} is the lease from the start, set in the
 * connection's startup options after the URL's own: a shorter one (meant for leaked connections)
 * could end a session between two of the journal's statements, or before its first one where the
 * client was slow to send it. Behind PgBouncer, which refuses a startup option it does not know
 * ("unsupported startup parameter"), list {@code options} in its {@code ignore_startup_parameters};
 * it then drops them, and the statement that pins the path raises a shorter limit to the lease
 * instead.
 *
 * <p>The driver's {@code socketTimeout} defaults to the lease (in whole seconds, rounded up): a
 * database that does not answer within a lease fails the call rather than holding it for ever. One
 * the URL sets must be 0 (none) or longer than the lock timeout ({@code lock_timeout_ms}, or half
 * the lease): a shorter one gave up on a statement waiting for a lock before the server did, in
 * words for a lost connection.
 *
 * <p>Every other parameter goes to the JDBC driver as it is ({@code sslmode}, {@code
 * connectTimeout}, …), except {@code stringtype}, which is the journal's ({@code unspecified}, so
 * that no operator in the journal's schema is chosen over {@code pg_catalog}'s for a string:
 * SPEC.md section 60.7, "Schema"). The password never appears in {@link #toString()}. Immutable.
 */
public final class PostgresLocation {
  /** The default lease: a paused steward's session ends this long after it last spoke. */
  public static final Duration DEFAULT_LEASE = Duration.ofSeconds(10);

  private final String host;
  private final int port;
  private final String database;
  private final @Nullable String user;
  private final @Nullable String password;
  private final Map<String, String> parameters;
  private final Duration lease;
  private final Duration lockWait;

  /**
   * The least {@code lock_timeout_ms} a URL may give: a statement of the journal's waits that long
   * for the brief locks of ordinary work (autovacuum, a snapshot save's {@code LOCK TABLE}, another
   * steward's opening) before it is refused, and a limit an application sets to give up at once
   * ({@code 1}, {@code 10}) cancelled batches behind them and failed the journal (SPEC.md section
   * 60.7, "Faults").
   */
  public static final long MIN_LOCK_TIMEOUT_MS = 100;

  /** The URL's {@code lock_timeout_ms}; null for the default, half the lease (which may change). */
  private final @Nullable Duration lockTimeout;

  /** The URL's {@code statement_timeout_ms}; null for the default (see statementTimeout()). */
  private final @Nullable Duration statementTimeout;

  private final @Nullable String schema;

  private PostgresLocation(
      String host,
      int port,
      String database,
      @Nullable String user,
      @Nullable String password,
      Map<String, String> parameters,
      Duration lease,
      Duration lockWait,
      @Nullable Duration lockTimeout,
      @Nullable Duration statementTimeout,
      @Nullable String schema) {
    if (lease.compareTo(Duration.ofSeconds(1)) < 0) {
      throw new IllegalArgumentException("lease_ms must be at least 1000: " + lease.toMillis());
    }
    if (lease.compareTo(Duration.ofMillis(Integer.MAX_VALUE)) > 0) {
      // The driver's socket timeout and the sessions' timeouts are set from it, and neither the
      // driver nor the server holds one longer: past this, every opening was refused in the
      // driver's words, "Something unusual has occurred to cause the driver to fail".
      throw new IllegalArgumentException(
          "lease_ms must be at most "
              + Integer.MAX_VALUE
              + " (PostgreSQL's longest timeout, about 24.8 days): "
              + lease.toMillis());
    }
    if (lockWait.isNegative()) {
      throw new IllegalArgumentException("lock_wait_ms must not be negative");
    }
    if (lockTimeout != null
        && (lockTimeout.toMillis() < MIN_LOCK_TIMEOUT_MS || lockTimeout.compareTo(lease) >= 0)) {
      // 0 is no limit to the server; one of the lease or more lets the driver's socket timeout
      // (the lease) give up first, in words for a lost connection, leaving the server's session
      // waiting (with the journal's lock) for as long as the holder keeps its lock. Below the
      // floor, the brief locks of ordinary work (autovacuum, a save's LOCK TABLE, another
      // steward's opening) cancel batches and fail the journal.
      throw new IllegalArgumentException(
          "lock_timeout_ms must be at least "
              + MIN_LOCK_TIMEOUT_MS
              + " and less than lease_ms ("
              + lease.toMillis()
              + "): "
              + lockTimeout.toMillis());
    }
    refuseShortSocketTimeout(
        parameters.get("socketTimeout"), lockTimeout != null ? lockTimeout : lease.dividedBy(2));
    Duration ceiling = statementCeiling(lease, parameters.get("socketTimeout"));
    long lockMillis = (lockTimeout != null ? lockTimeout : lease.dividedBy(2)).toMillis();
    if (statementTimeout == null && ceiling.toMillis() - lockMillis < 2) {
      // The default limit lies strictly between the two in whole milliseconds, as the server
      // takes it; with no whole millisecond between them it came out at the lock timeout, so a
      // statement waiting for a lock was cancelled as overlong first, naming no holder.
      throw new IllegalArgumentException(
          "lock_timeout_ms ("
              + lockMillis
              + ") leaves no whole millisecond below lease_ms and the URL's socketTimeout ("
              + ceiling.toMillis()
              + " ms) for the statement limit, which must be longer than the lock timeout (so a"
              + " statement waiting for a lock is refused naming its holder) and shorter than"
              + " those (so the server's cancel comes before the driver gives up): lower"
              + " lock_timeout_ms, or give statement_timeout_ms=0 (none)");
    }
    if (statementTimeout != null
        && !statementTimeout.isZero()
        && (statementTimeout.compareTo(lockTimeout != null ? lockTimeout : lease.dividedBy(2)) <= 0
            || statementTimeout.compareTo(ceiling) >= 0)) {
      // At the lock timeout or below, a statement waiting for a lock is cancelled as overlong
      // first, in words naming neither the lock nor its holder; at the lease or the driver's
      // socket timeout or above, the driver gives up first, in words for a lost connection.
      throw new IllegalArgumentException(
          "statement_timeout_ms must be 0 (none), or more than the lock timeout ("
              + (lockTimeout != null ? lockTimeout : lease.dividedBy(2)).toMillis()
              + " ms, lock_timeout_ms or half lease_ms) and less than lease_ms and the URL's"
              + " socketTimeout ("
              + ceiling.toMillis()
              + " ms): "
              + statementTimeout.toMillis());
    }
    if (schema != null
        && (schema.isEmpty() || schema.getBytes(StandardCharsets.UTF_8).length > MAX_IDENTIFIER)) {
      // The server would cut a longer name to its first 63 bytes: another schema than the one
      // named.
      throw new IllegalArgumentException(
          "schema is 1 to " + MAX_IDENTIFIER + " bytes, as PostgreSQL's names are: " + schema);
    }
    if ("$user".equals(schema)) {
      // The session is pinned to its schema through search_path, which reads this name, quoted or
      // not, as the schema named after the session's role: the journal would be kept there.
      throw new IllegalArgumentException(
          "schema $user cannot hold a journal: a search_path takes that name for the schema named"
              + " after the role, so the journal's statements would reach that one; rename it");
    }
    this.host = host;
    this.port = port;
    this.database = database;
    this.user = user;
    this.password = password;
    this.parameters = Map.copyOf(parameters);
    this.lease = lease;
    this.lockWait = lockWait;
    this.lockTimeout = lockTimeout;
    this.statementTimeout = statementTimeout;
    this.schema = schema;
  }

  /**
   * Refuses a URL's {@code socketTimeout} (whole seconds; 0 is none) of {@code lockTimeout} or
   * less: the driver would give up on a statement waiting for a lock first, in words for a lost
   * connection naming neither the lock nor its holder, while the server's session went on waiting
   * with the journal's lock. One the driver cannot read is left for the driver to refuse.
   */
  private static void refuseShortSocketTimeout(
      @Nullable String socketTimeout, Duration lockTimeout) {
    if (socketTimeout == null) {
      return;
    }
    long seconds;
    try {
      seconds = Long.parseLong(socketTimeout.strip());
    } catch (NumberFormatException e) {
      return;
    }
    // Compared in whole seconds: seconds * 1000 overflowed past about 9.2e15, and a socketTimeout
    // that long was refused as too short.
    if (seconds > 0 && seconds <= lockTimeout.toMillis() / 1000) {
      throw new IllegalArgumentException(
          "socketTimeout="
              + seconds
              + " (seconds) must be longer than the lock_timeout of "
              + lockTimeout.toMillis()
              + " ms (lock_timeout_ms, or half lease_ms where the URL has none): the driver would"
              + " give up on a statement waiting for a table's lock first, reported as a lost"
              + " connection while the server's session kept waiting; raise socketTimeout, set it"
              + " to 0 (none), or lower lock_timeout_ms");
    }
  }

  /**
   * What the journal's statement limit must stay below: the lease, or a URL's {@code socketTimeout}
   * (whole seconds; 0 is none) shorter than it. A limit at the socket timeout or above lets the
   * driver give up on a statement first, in words for a lost connection, where the server's cancel
   * says why and leaves the session usable. One the driver cannot read is left for the driver to
   * refuse.
   */
  private static Duration statementCeiling(Duration lease, @Nullable String socketTimeout) {
    if (socketTimeout == null) {
      return lease;
    }
    long seconds;
    try {
      seconds = Long.parseLong(socketTimeout.strip());
    } catch (NumberFormatException e) {
      return lease;
    }
    // Compared in seconds first: a socketTimeout in the billions overflows in milliseconds.
    return seconds > 0 && seconds <= lease.toSeconds() && seconds * 1000 < lease.toMillis()
        ? Duration.ofSeconds(seconds)
        : lease;
  }

  /** The longest name PostgreSQL keeps whole, in bytes ({@code NAMEDATALEN} less one). */
  private static final int MAX_IDENTIFIER = 63;

  /** Whether {@code text} is a PostgreSQL URL rather than, say, a file name. */
  public static boolean isPostgres(String text) {
    return text.startsWith("postgresql://")
        || text.startsWith("postgres://")
        || text.startsWith("jdbc:postgresql://");
  }

  /**
   * Parses a URL.
   *
   * @throws IllegalArgumentException naming what is wrong with it
   */
  public static PostgresLocation parse(String url) {
    Objects.requireNonNull(url, "url");
    String text = url.startsWith("jdbc:") ? url.substring("jdbc:".length()) : url;
    if (!isPostgres(text)) {
      throw new IllegalArgumentException("not a postgresql:// URL");
    }
    URI uri;
    try {
      uri = new URI(text);
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException("not a URL: " + e.getReason(), e);
    }
    String host = uri.getHost();
    if (host == null || host.isEmpty()) {
      throw new IllegalArgumentException("names no host");
    }
    if (uri.getPort() == 0 || uri.getPort() > 65_535) {
      // The driver would log a warning of its own and then fail to parse the URL.
      throw new IllegalArgumentException("port " + uri.getPort() + " is not 1 to 65535");
    }
    String path = uri.getRawPath() == null ? "" : uri.getRawPath();
    String database = decode(path.startsWith("/") ? path.substring(1) : path);
    if (database.isEmpty()) {
      throw new IllegalArgumentException("names no database (postgresql://host/DATABASE)");
    }
    String user = null;
    String password = null;
    if (uri.getRawUserInfo() != null) {
      String info = uri.getRawUserInfo();
      int colon = info.indexOf(':');
      user = decode(colon < 0 ? info : info.substring(0, colon));
      password = colon < 0 ? null : decode(info.substring(colon + 1));
    }
    Map<String, String> params = new LinkedHashMap<>();
    if (uri.getRawQuery() != null) {
      for (String pair : uri.getRawQuery().split("&", -1)) {
        if (pair.isEmpty()) {
          continue;
        }
        int eq = pair.indexOf('=');
        params.put(
            decode(eq < 0 ? pair : pair.substring(0, eq)),
            eq < 0 ? "" : decode(pair.substring(eq + 1)));
      }
    }
    if (user == null && params.containsKey("user")) {
      user = params.remove("user");
    }
    if (password == null && params.containsKey("password")) {
      password = params.remove("password");
    }
    Duration lease = millis(params.remove("lease_ms"), "lease_ms", DEFAULT_LEASE);
    Duration lockWait = millis(params.remove("lock_wait_ms"), "lock_wait_ms", Duration.ZERO);
    String lockTimeoutMs = params.remove("lock_timeout_ms");
    Duration lockTimeout =
        lockTimeoutMs == null ? null : millis(lockTimeoutMs, "lock_timeout_ms", Duration.ZERO);
    String statementTimeoutMs = params.remove("statement_timeout_ms");
    Duration statementTimeout =
        statementTimeoutMs == null
            ? null
            : millis(statementTimeoutMs, "statement_timeout_ms", Duration.ZERO);
    String schema = params.remove("schema");
    return new PostgresLocation(
        host,
        uri.getPort() < 0 ? 5432 : uri.getPort(),
        database,
        user,
        password,
        params,
        lease,
        lockWait,
        lockTimeout,
        statementTimeout,
        schema);
  }

  private static Duration millis(@Nullable String v, String name, Duration absent) {
    if (v == null) {
      return absent;
    }
    try {
      return Duration.ofMillis(Long.parseLong(v));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(name + " is not a whole number of milliseconds: " + v, e);
    }
  }

  private static String decode(String s) {
    return URLDecoder.decode(s.replace("+", "%2B"), StandardCharsets.UTF_8);
  }

  /** The lease (see the class comment). */
  public Duration lease() {
    return lease;
  }

  /** How long opening waits for the journal's lock (see the class comment). */
  public Duration lockWait() {
    return lockWait;
  }

  /**
   * How long one of the journal's statements waits for a lock another session holds: the URL's
   * {@code lock_timeout_ms}, or half the lease (see the class comment).
   */
  public Duration lockTimeout() {
    return lockTimeout != null ? lockTimeout : lease.dividedBy(2);
  }

  /**
   * How long one of the journal's statements runs before the server cancels it: the URL's {@code
   * statement_timeout_ms} (zero for none), or midway between {@link #lockTimeout()} and the lease,
   * or the URL's {@code socketTimeout} where that is shorter (see the class comment).
   */
  public Duration statementTimeout() {
    if (statementTimeout != null) {
      return statementTimeout;
    }
    // Midway to the socket timeout where the URL's is shorter than the lease: a limit past it
    // let the driver give up on a sleeping trigger's batch first, as a lost connection, and
    // raised a DBA's limit that ran out before it to one that did not.
    // In whole milliseconds, as the server is given both: the constructor made sure there are at
    // least two between them, so this lies strictly between.
    long lock = lockTimeout().toMillis();
    long ceiling = statementCeiling(lease, parameters.get("socketTimeout")).toMillis();
    return Duration.ofMillis(lock + (ceiling - lock) / 2);
  }

  /** The schema named by the URL's {@code schema}, if it names one (see the class comment). */
  public Optional<String> schema() {
    return Optional.ofNullable(schema);
  }

  /** This location with another lease. */
  public PostgresLocation withLease(Duration v) {
    return with(v, lockWait);
  }

  /** This location with another lock wait. */
  public PostgresLocation withLockWait(Duration v) {
    return with(lease, v);
  }

  private PostgresLocation with(Duration lease, Duration lockWait) {
    return new PostgresLocation(
        host,
        port,
        database,
        user,
        password,
        parameters,
        lease,
        lockWait,
        lockTimeout,
        statementTimeout,
        schema);
  }

  /**
   * Opens a new connection to the database, its {@code search_path} pinned to the journal's schema
   * alone (see the class comment).
   *
   * @throws SQLException also when that schema does not exist (SQLSTATE {@code 3F000})
   */
  Connection connect() throws SQLException {
    return session().connection();
  }

  /**
   * A session at a location and the journal's tables its statements name in full: the schema the
   * session's path was pinned to as it was made, the URL's or the server's current one then.
   */
  record Session(Connection connection, JournalTables tables) implements AutoCloseable {
    /** Closes the connection. */
    @Override
    public void close() throws SQLException {
      connection.close();
    }
  }

  /**
   * Opens a new connection to the database as {@link #connect()} does, with the schema it pinned:
   * the journal names its tables in that schema in every statement, so that a path changed later (a
   * pooling proxy's other server connection, a trigger's {@code SET}) reaches none of them.
   *
   * @throws SQLException also when that schema does not exist (SQLSTATE {@code 3F000})
   */
  Session session() throws SQLException {
    Connection c = open();
    try {
      return new Session(c, new JournalTables(pin(c)));
    } catch (SQLException | RuntimeException e) {
      c.close();
      throw e;
    }
  }

  /**
   * Sets the session's {@code search_path} to the journal's schema, then {@code pg_temp}: the
   * URL's, or else the first schema of the path its settings made, the session's temporary one
   * aside. Everything named here is pg_catalog's by its full name, since until this statement has
   * run the path is whatever the role's settings make it.
   *
   * <p>The same statement raises the limits a role or database setting may make shorter than the
   * journal's own work takes (0, no limit, is kept in both):
   *
   * <ul>
   *   <li>{@code idle_in_transaction_session_timeout}, to the lease. Reads take a fetch of rows at
   *       a time in a transaction and work on them between fetches (a steward's replay of the
   *       records after its snapshot, an export's writes), which leaves the session idle in its
   *       transaction meanwhile; a DBA's limit below the lease ended such a read part way, where
   *       the journal's own session, given the lease, went on.
   *   <li>{@code statement_timeout}, to {@link #statementTimeout()} where a role or database gives
   *       none or a shorter one (every limit lifted where that is zero). A limit tuned for an
   *       application's queries (50 ms) cancelled a batch's insert or COMMIT on a loaded server,
   *       and a cancelled batch fails the journal; with none, a trigger that slept held a batch,
   *       and every serve queued behind it, until the driver's socket timeout gave up, or for ever
   *       where that was lifted ({@code socketTimeout=0}).
   *   <li>{@code lock_timeout}, set to {@link #lockTimeout()} (half the lease unless the URL says),
   *       whatever it was: a batch's insert waits for the tables' locks (a DBA's {@code CREATE
   *       INDEX}, another steward's opening adding the owner table's columns) and the raise of an
   *       epoch for a write in progress, and a limit tuned to make an application give up at once
   *       ({@code 10ms}) cancelled that wait and failed the journal; while with none (a role's
   *       default) a save's {@code LOCK TABLE} or a batch's insert behind a DBA's lock waited until
   *       the driver's socket timeout gave up, in words for a lost connection, and with that lifted
   *       ({@code socketTimeout=0}) for as long as the DBA held it, every serve queued behind.
   *   <li>{@code idle_session_timeout}, to the lease where it is below: the startup options set it
   *       to the lease already, but a pooler may drop them (PgBouncer told to ignore them, {@code
   *       ignore_startup_parameters = options}, passes them to no server), and a session then keeps
   *       a DBA's limit, which could end it between two of the journal's statements.
   *   <li>{@code transaction_timeout} (PostgreSQL 17 and later), lifted (0): an opening checks the
   *       whole journal in one transaction, an import writes it in one, an export reads it in one,
   *       each as long as the journal makes it, and the server ends the session of one that
   *       outlasts the limit (an opening's session holds the journal's lock). A server without the
   *       setting has no row for it, so nothing is set there.
   * </ul>
   *
   * @return the schema's name as the catalog holds it
   */
  String pin(Connection c) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            // The session's temporary schema last: the server searches it first for a table
            // where the path does not name it, and a temporary table of the journal's name (left
            // by whatever used the session before) would be written in place of the journal's.
            "SELECT pg_catalog.set_config('search_path',"
                + " pg_catalog.format('%I, pg_temp', n.nspname), false),"
                + " pg_catalog.set_config('lock_timeout', ?, false),"
                + " pg_catalog.has_schema_privilege(n.oid, 'USAGE'), pg_catalog.current_user(),"
                + " n.nspname,"
                + " (SELECT pg_catalog.count(pg_catalog.set_config(s.name, l.floor, false))"
                + " FROM pg_catalog.pg_settings s, (VALUES"
                + " ('idle_in_transaction_session_timeout'::pg_catalog.text, ?::pg_catalog.text),"
                // Set to the lease in the startup options already; raised here too for a session
                // whose startup options a pooler dropped (PgBouncer's ignore_startup_parameters).
                + " ('idle_session_timeout', ?),"
                // PostgreSQL 17's; on an earlier server pg_settings has no such row, and nothing
                // is set.
                + " ('transaction_timeout', '0')) AS l(name, floor)"
                // A CASE, so that no other setting's value ("off") is ever cast to a number. A
                // floor of 0 is no limit: any limit is lifted.
                + " WHERE CASE WHEN s.name OPERATOR(pg_catalog.=) l.name"
                + " THEN s.setting::pg_catalog.int8 OPERATOR(pg_catalog.>) 0"
                + " AND (l.floor OPERATOR(pg_catalog.=) '0' OR s.setting::pg_catalog.int8"
                + " OPERATOR(pg_catalog.<) l.floor::pg_catalog.int8) ELSE false END),"
                // The statements' own limit, set where there is none as well: with none, nothing
                // bounded a statement a trigger kept running but the driver's socket timeout.
                + " (SELECT pg_catalog.set_config(t.name, ?, false) FROM pg_catalog.pg_settings t"
                + " WHERE t.name OPERATOR(pg_catalog.=) 'statement_timeout'"
                // 0, none, is below any limit; a limit of 0 lifts any.
                + " AND (?::pg_catalog.int8 OPERATOR(pg_catalog.=) 0"
                + " OR t.setting::pg_catalog.int8 OPERATOR(pg_catalog.<) ?::pg_catalog.int8))"
                + " FROM pg_catalog.pg_namespace n WHERE n.nspname OPERATOR(pg_catalog.=)"
                + " COALESCE(?::pg_catalog.text,"
                // The path's first schema but the session's temporary one: a path naming pg_temp
                // first makes that the current schema, and the journal's tables made there were
                // temporary, gone with the session and every record in them.
                + " (SELECT p.s::pg_catalog.text"
                + " FROM pg_catalog.unnest(pg_catalog.current_schemas(false)) WITH ORDINALITY"
                + " AS p(s, i) JOIN pg_catalog.pg_namespace q ON q.nspname OPERATOR(pg_catalog.=) p.s"
                + " WHERE q.oid OPERATOR(pg_catalog.<>) pg_catalog.pg_my_temp_schema()"
                + " ORDER BY p.i LIMIT 1))")) {
      ps.setString(1, Long.toString(lockTimeout().toMillis()));
      ps.setString(2, Long.toString(lease.toMillis()));
      ps.setString(3, Long.toString(lease.toMillis()));
      String statementLimit = Long.toString(statementTimeout().toMillis());
      ps.setString(4, statementLimit);
      ps.setString(5, statementLimit);
      ps.setString(6, statementLimit);
      ps.setString(7, schema);
      try (ResultSet rs = ps.executeQuery()) {
        boolean exists = rs.next();
        if (exists && !rs.getBoolean(3)) {
          // Only the URL's schema can be one the role may not use: the server leaves such a schema
          // out of the session's own path. Its tables could be neither read nor created, and the
          // server would say only "no schema has been selected to create in".
          throw new SQLException(
              "role "
                  + rs.getString(4)
                  + " may not use schema "
                  + schema
                  + " (schema= in the URL) of database "
                  + database
                  + ": it has no USAGE privilege on it (GRANT USAGE ON SCHEMA, and SELECT, INSERT"
                  + " on its tables, or name another schema)",
              INSUFFICIENT_PRIVILEGE);
        }
        if (!exists) {
          throw new SQLException(
              schema != null
                  ? "schema "
                      + schema
                      + " (schema= in the URL) does not exist in database "
                      + database
                  : "the session's search_path names no schema that exists in database "
                      + database
                      + ", so there is nowhere to keep the journal's tables: name one with schema="
                      + " in the URL",
              INVALID_SCHEMA_NAME);
        }
        String pinned = rs.getString(5);
        if (pinned.startsWith("pg_")) {
          // Names beginning pg_ are the system's (no role may make one): pg_catalog, pg_toast. The
          // server refuses a table there only at creation, in words naming neither the path nor
          // the URL's schema= that put it first.
          throw new SQLException(
              "schema "
                  + pinned
                  + (schema != null
                      ? " (schema= in the URL)"
                      : " (the first schema of the session's search_path, as a role's or the"
                          + " database's setting, or the URL's options, set it)")
                  + " of database "
                  + database
                  + " is the system's, where the journal's tables cannot be kept: name another"
                  + " with schema= in the URL, or put the journal's schema first in the path",
              INVALID_SCHEMA_NAME);
        }
        return pinned;
      }
    }
  }

  /** SQLSTATE {@code insufficient_privilege}. */
  private static final String INSUFFICIENT_PRIVILEGE = "42501";

  /** SQLSTATE {@code invalid_schema_name}. */
  private static final String INVALID_SCHEMA_NAME = "3F000";

  private Connection open() throws SQLException {
    Properties p = new Properties();
    p.putAll(parameters);
    if (user != null) {
      p.setProperty("user", user);
    }
    if (password != null) {
      p.setProperty("password", password);
    }
    // A string parameter sent as varchar would be compared by whichever text = varchar operator
    // the session's schema holds, pg_catalog having none: one made there to answer false hid the
    // journal's rows from every statement (WHERE journal = ?), and ran as the steward's role. Sent
    // untyped, it takes the other side's type, and pg_catalog's text = text, searched first, is
    // the one chosen. The journal's own, whatever the URL says.
    p.setProperty("stringtype", "unspecified");
    p.putIfAbsent("ApplicationName", "mesh-steward");
    // A peer gone without closing (a machine lost) is noticed by TCP as well as by the lease.
    p.putIfAbsent("tcpKeepAlive", "true");
    // A database that stops answering (a partition, a frozen machine) closes nothing, and keepalive
    // takes hours: without a limit a write waited for ever, and every serve queued behind it. No
    // answer within a lease means the server has ended, or will end, the session anyway.
    p.putIfAbsent("socketTimeout", Long.toString(Math.ceilDiv(lease.toMillis(), 1000L)));
    // The idle limit is the lease from the session's first moment, in its startup options (after
    // the URL's own, so that it is the one in force; they outrank a role's or the database's
    // setting): raised only by the first statement, a DBA's limit shorter than the time a loaded
    // client takes to send it ended the session before it ran (see pin).
    String idle = "-c idle_session_timeout=" + lease.toMillis();
    String options = p.getProperty("options");
    p.setProperty("options", options == null || options.isBlank() ? idle : options + " " + idle);
    try {
      return DriverManager.getConnection(
          "jdbc:postgresql://" + host + ":" + port + "/" + database, p);
    } catch (SQLException e) {
      if (e.getCause() instanceof java.net.UnknownHostException) {
        // The driver says only "The connection attempt failed.", which names no cause.
        throw new SQLException("unknown host " + host, e.getSQLState(), e);
      }
      throw e;
    }
  }

  /** The URL without its password. */
  @Override
  public String toString() {
    return "postgresql://"
        + (user != null ? user + (password != null ? ":***" : "") + "@" : "")
        + host
        + ":"
        + port
        + "/"
        + database
        + (schema != null ? "?schema=" + schema : "");
  }
}
