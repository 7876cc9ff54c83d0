package org.meshjava.journal.postgres;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.meshjava.core.ContentId;
import org.meshjava.journal.JournalException;
import org.meshjava.journal.internal.LineReader;

/**
 * The journal's tables and the statements over them (SPEC.md section 60.7). Every statement names
 * the tables of the {@link JournalTables} it is given in full, and never depends on the session's
 * {@code search_path}. Stateless.
 *
 * <pre>
 * mesh_journal_owner  (journal text PRIMARY KEY, epoch bigint,       -- one row per journal
 *                      cluster_id bigint, database_oid bigint)
 * mesh_journal_record (journal text, seq bigint, line bytea,          -- one row per record
 *                      PRIMARY KEY (journal, seq))
 * mesh_journal_snapshot (journal text, count bigint, snapshot bytea, -- PostgresSnapshotStore
 *                        PRIMARY KEY (journal, count))
 * </pre>
 */
final class JournalSchema {
  private JournalSchema() {}

  /**
   * The advisory lock that serialises creating the tables, taken in its two-integer form: the
   * server keeps those keys apart from the one-bigint keys of the journals' own locks, so no
   * journal's name (a journal {@code schema} in {@code public}, keyed by its name alone) can take
   * this one for its whole life and stall every other opening in the database.
   */
  static final long SCHEMA_LOCK = lockKey("mesh-journal schema");

  /**
   * Inserts the rows {@code (journal, seq, line)} from two arrays, only while the journal's epoch
   * is the writer's. The owner row is read {@code FOR SHARE}: a successor raising the epoch waits
   * for a write in progress to commit, and a write after the raise finds no row and inserts
   * nothing. Answers one row: the rows inserted, and whether every one was stored with the column
   * types the journal created (seq bigint, line bytea). A column altered to another type would take
   * the values all the same, by an assignment cast ({@code bytea} to {@code text} is one), and
   * store a record in a form that does not read back as the record. And, third, how many of the
   * rows stored are, column for column, rows it was given: a {@code BEFORE INSERT} trigger may
   * rewrite a row on its way in, and the count and the types would not show it. And, fourth, how
   * many rules the table carries: the one rule the server runs such an insert under, an
   * unconditional {@code DO INSTEAD} rule with a {@code RETURNING} list, writes the rows elsewhere
   * and answers them from there, so every other column would read as the rows stored (the rules are
   * read in the statement's own snapshot, taken after its locks, so one put on while the steward
   * runs is seen by the statement it rewrites). Parameters: journal, epoch, seq[], line[], journal,
   * journal. Every name in full ({@link JournalTables}), each operator pg_catalog's by name: a
   * trigger run by the insert may change the session's path for the rest of the transaction or the
   * session, and a schema it puts ahead of pg_catalog would have its operators (an {@code =} on
   * text that takes a padded line for the one given, an {@code =} on bigint that lets a stale epoch
   * through the fence) chosen in the next batch's statement.
   */
  static String fencedInsert(JournalTables t) {
    return "WITH fence AS (SELECT 1 FROM "
        + t.owner()
        + " WHERE journal OPERATOR(pg_catalog.=) ? AND epoch OPERATOR(pg_catalog.=) ? FOR SHARE),"
        // ROWS FROM, not unnest(a, b): the server reads the two-array form only unqualified.
        + " given AS (SELECT r.seq, r.line FROM ROWS FROM"
        + " (pg_catalog.unnest(?::pg_catalog.int8[]), pg_catalog.unnest(?::pg_catalog.bytea[]))"
        + " AS r(seq, line)),"
        + " stored AS (INSERT INTO "
        + t.record()
        + " (journal, seq, line)"
        + " SELECT ?, g.seq, g.line FROM fence, given g"
        + " RETURNING journal, seq, line,"
        // pg_catalog's = and pg_typeof by name: it has no = for regtype, and its pg_typeof takes
        // "any", so an operator or a pg_typeof(text) in the journal's schema, matching exactly,
        // would be chosen over them.
        + " pg_catalog.pg_typeof(seq) OPERATOR(pg_catalog.=) 'pg_catalog.int8'::pg_catalog.regtype"
        + " AND pg_catalog.pg_typeof(line) OPERATOR(pg_catalog.=)"
        + " 'pg_catalog.bytea'::pg_catalog.regtype AS typed)"
        + " SELECT (SELECT pg_catalog.count(*) FROM stored),"
        + " (SELECT coalesce(pg_catalog.bool_and(typed), true) FROM stored),"
        // As text, so that a column altered to another type compares rather than fails.
        + " (SELECT pg_catalog.count(*) FROM stored s JOIN given g"
        + " ON s.journal::pg_catalog.text OPERATOR(pg_catalog.=) ?"
        + " AND s.seq::pg_catalog.text OPERATOR(pg_catalog.=) g.seq::pg_catalog.text"
        + " AND s.line::pg_catalog.text OPERATOR(pg_catalog.=) g.line::pg_catalog.text),"
        + " (SELECT pg_catalog.count(*) FROM pg_catalog.pg_rewrite"
        + " WHERE ev_class OPERATOR(pg_catalog.=) "
        + t.oid("'mesh_journal_record'")
        + ")";
  }

  /**
   * Creates the tables when absent; safe when several stewards start at once, of this version or of
   * one that took another key for {@link #SCHEMA_LOCK}. Answers whether the owner table has the
   * columns recording where each journal was written ({@link Home}): an owner table made by an
   * earlier version gains them here, but only where this role owns it.
   */
  static boolean create(Connection c, JournalTables t) throws SQLException {
    for (int attempt = 1; ; attempt++) {
      try {
        return createOnce(c, t);
      } catch (SQLException e) {
        // A steward not holding this lock (an earlier version keyed it otherwise) made a table in
        // the same moment: its commit is what failed ours, so the next attempt finds the table.
        if (attempt == CREATE_ATTEMPTS || !DUPLICATE_STATES.contains(e.getSQLState())) {
          throw e;
        }
      }
    }
  }

  /** How often {@link #create} tries: each retry follows another session's committed table. */
  private static final int CREATE_ATTEMPTS = 4;

  /**
   * SQLSTATEs of a {@code CREATE TABLE IF NOT EXISTS} racing another session's: {@code
   * unique_violation} (on the catalog's own indexes), {@code duplicate_table}, {@code
   * duplicate_object}.
   */
  private static final Set<String> DUPLICATE_STATES = Set.of("23505", "42P07", "42710");

  private static boolean createOnce(Connection c, JournalTables t) throws SQLException {
    c.setAutoCommit(false);
    try (Statement s = c.createStatement()) {
      if (!exists(c, t, "mesh_journal_owner")
          || !exists(c, t, "mesh_journal_record")
          || !exists(c, t, "mesh_journal_snapshot")) {
        createTables(c, s, t);
      }
      // In a transaction of its own, after the lock is let go: its wait for the owner table is
      // then never part of another opening's wait for the lock (see homeColumns).
      boolean homed = homeColumns(c, s, t);
      c.commit();
      return homed;
    } catch (SQLException e) {
      throw rolledBack(c, e);
    } finally {
      if (!c.isClosed()) {
        c.setAutoCommit(true);
      }
    }
  }

  /**
   * Creates the tables that are absent, under {@link #SCHEMA_LOCK}, and commits. Only where one is
   * absent: {@code CREATE TABLE IF NOT EXISTS} asks for the {@code CREATE} privilege on the schema
   * before it looks, so a steward's role granted the tables a DBA made and nothing on the schema
   * (PostgreSQL 15 no longer gives every role {@code CREATE} on {@code public}) was refused
   * "permission denied for schema public" at every opening and snapshot save.
   */
  private static void createTables(Connection c, Statement s, JournalTables t) throws SQLException {
    refuseUncreatable(c, t);
    // CREATE TABLE IF NOT EXISTS races with itself (a duplicate type error); one at a time.
    takeSchemaLock(c, s);
    s.execute(
        "CREATE TABLE IF NOT EXISTS "
            + t.owner()
            + " ("
            + " journal text PRIMARY KEY,"
            + " epoch bigint NOT NULL CHECK (epoch OPERATOR(pg_catalog.>) 0),"
            + " cluster_id bigint,"
            + " database_oid bigint)");
    s.execute(
        "CREATE TABLE IF NOT EXISTS "
            + t.record()
            + " ("
            + " journal text NOT NULL,"
            + " seq bigint NOT NULL CHECK (seq OPERATOR(pg_catalog.>=) 0),"
            + " line bytea NOT NULL,"
            + " PRIMARY KEY (journal, seq))");
    s.execute(
        "CREATE TABLE IF NOT EXISTS "
            + t.snapshot()
            + " ("
            + " journal text NOT NULL,"
            + " count bigint NOT NULL CHECK (count OPERATOR(pg_catalog.>=) 0),"
            + " snapshot bytea NOT NULL,"
            + " PRIMARY KEY (journal, count))");
    c.commit();
  }

  /**
   * Refuses a session whose transactions are read-only, before anything is made or raised: a
   * standby (in recovery) takes no writes, and {@code default_transaction_read_only} set on the
   * database or the role (the usual way to freeze a database for a migration) makes every
   * transaction read-only. The journal makes its tables, raises its epoch and writes its records,
   * and the server refused the first of those only as "cannot execute INSERT in a read-only
   * transaction", naming neither. The setting is the DBA's, so it is named, not lifted. Asked in a
   * transaction, as the journal writes: the driver begins each transaction {@code READ ONLY} where
   * the URL says {@code readOnly=true} and leaves a statement on its own alone, so asked outside
   * one the journal opened (its epoch raised on its own) and failed at its first batch.
   */
  static void refuseReadOnly(Connection c) throws SQLException {
    boolean autoCommit = c.getAutoCommit();
    c.setAutoCommit(false);
    try (Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT pg_catalog.pg_is_in_recovery(),"
                    + " pg_catalog.current_setting('transaction_read_only'),"
                    + " pg_catalog.quote_ident(pg_catalog.current_user()::pg_catalog.text),"
                    + " pg_catalog.quote_ident(pg_catalog.current_database()::pg_catalog.text),"
                    + " pg_catalog.current_setting('default_transaction_read_only')")) {
      rs.next();
      if (rs.getBoolean(1)) {
        throw new SQLException(
            "the server is a standby (in recovery), which takes no writes, and the journal writes"
                + " its records and its epoch: point the URL at the primary (a URL naming several"
                + " hosts takes targetServerType=primary)",
            READ_ONLY_SQL_TRANSACTION);
      }
      if ("on".equals(rs.getString(2)) && !"on".equals(rs.getString(5))) {
        throw new SQLException(
            "the driver begins every transaction of the session READ ONLY (the URL's"
                + " readOnly=true), and the journal writes its records and its epoch: take"
                + " readOnly out of the URL",
            READ_ONLY_SQL_TRANSACTION);
      }
      if ("on".equals(rs.getString(2))) {
        throw new SQLException(
            "every transaction of the session is a read-only transaction"
                + " (default_transaction_read_only is on, set for database "
                + rs.getString(4)
                + " or role "
                + rs.getString(3)
                + ", or by the URL's options or its readOnly=true), and the journal writes its"
                + " records and its epoch; if the database is not frozen on purpose, ALTER ROLE "
                + rs.getString(3)
                + " SET default_transaction_read_only = off (or ALTER DATABASE "
                + rs.getString(4)
                + " RESET default_transaction_read_only)",
            READ_ONLY_SQL_TRANSACTION);
      }
      c.commit();
    } catch (SQLException e) {
      throw rolledBack(c, e);
    } finally {
      if (!c.isClosed()) {
        c.setAutoCommit(autoCommit);
      }
    }
  }

  /** SQLSTATE {@code read_only_sql_transaction}. */
  private static final String READ_ONLY_SQL_TRANSACTION = "25006";

  /**
   * Refuses, naming the grant, a role that may not create tables in {@code t}'s schema where the
   * journal's are to be made: the server said only "permission denied for schema", naming neither
   * the tables nor the grant, and PostgreSQL 15 no longer gives every role {@code CREATE} on {@code
   * public}, so a new steward's role meets it at its first opening or snapshot save.
   */
  private static void refuseUncreatable(Connection c, JournalTables t) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT pg_catalog.has_schema_privilege(n.oid, 'CREATE'),"
                    + " pg_catalog.quote_ident(pg_catalog.current_user()::pg_catalog.text),"
                    + " pg_catalog.quote_ident(n.nspname::pg_catalog.text)"
                    + " FROM pg_catalog.pg_namespace n WHERE n.nspname OPERATOR(pg_catalog.=) "
                    + t.schemaLiteral()
                    + "::pg_catalog.name")) {
      if (rs.next() && !rs.getBoolean(1)) {
        throw new SQLException(
            "role "
                + rs.getString(2)
                + " may not create the journal's tables (mesh_journal_owner, mesh_journal_record,"
                + " mesh_journal_snapshot), not all of which are in schema "
                + rs.getString(3)
                + ": it has no CREATE privilege on the schema. GRANT CREATE ON SCHEMA "
                + rs.getString(3)
                + " TO "
                + rs.getString(2)
                + ", or have a role that has it open the journal once and grant this one SELECT,"
                + " INSERT, UPDATE and DELETE on the tables",
            INSUFFICIENT_PRIVILEGE);
      }
    }
  }

  /**
   * Takes {@link #SCHEMA_LOCK} for the transaction, waiting at most half the session's socket
   * timeout (the lease; the URL's {@code lock_timeout_ms} where it has none): a session that holds
   * it (an opening stuck there, a DBA's, an application's of the same two-integer key) held every
   * opening in the database until the driver gave up, in words for a lost connection. The server's
   * lock timeout says so first, and the refusal names the session; no {@code statement_timeout}
   * runs while it waits. The transaction's own {@code lock_timeout} and {@code statement_timeout}
   * are put back after.
   */
  private static void takeSchemaLock(Connection c, Statement s) throws SQLException {
    int socketMillis = c.getNetworkTimeout();
    String lockBefore;
    String statementBefore;
    try (ResultSet rs =
        s.executeQuery(
            "SELECT pg_catalog.current_setting('lock_timeout'),"
                + " pg_catalog.current_setting('statement_timeout')")) {
      rs.next();
      lockBefore = rs.getString(1);
      statementBefore = rs.getString(2);
    }
    // The wait is the lock_timeout's alone: a statement_timeout as short (the journal's or a
    // DBA's longer one, which the half of the socket timeout's whole seconds may exceed) runs out
    // first, and the server then
    // reports it, in words that name neither the lock nor its holder. Where no lock_timeout runs
    // either (0), the statement's is kept, the only limit left.
    boolean lockLimited = socketMillis > 0 || !"0".equals(lockBefore);
    setLocal(
        c,
        socketMillis > 0 ? Long.toString(Math.max(1, socketMillis / 2)) : lockBefore,
        lockLimited ? "0" : statementBefore);
    try {
      s.execute(
          "SELECT pg_catalog.pg_advisory_xact_lock("
              + (int) (SCHEMA_LOCK >>> 32)
              + ", "
              + (int) SCHEMA_LOCK
              + ")");
    } catch (SQLException e) {
      if (!LOCK_NOT_AVAILABLE.equals(e.getSQLState())) {
        throw e;
      }
      // The failed wait ended the transaction; the holder is looked up in a new one.
      c.rollback();
      Optional<LockHolding> holder = lockHolder(c, SCHEMA_LOCK, 2);
      // Without a socket timeout the wait was the session's lock_timeout (lock_timeout_ms), which
      // the rollback leaves as the URL set it; with one, the SET LOCAL above.
      String waited;
      if (socketMillis > 0) {
        waited = Math.max(1, socketMillis / 2) + "ms (half the driver's socketTimeout)";
      } else {
        try (ResultSet rs = s.executeQuery("SELECT pg_catalog.current_setting('lock_timeout')")) {
          rs.next();
          waited = rs.getString(1) + " (the session's lock_timeout, the URL's lock_timeout_ms)";
        }
      }
      throw new SQLException(
          "the lock that serialises creating the journal's tables in this database (advisory lock "
              + (int) (SCHEMA_LOCK >>> 32)
              + ", "
              + (int) SCHEMA_LOCK
              + ") was held by another session for "
              + waited
              + holder
                  .map(
                      h ->
                          " ("
                              + h.session()
                              + "): an opening stuck there, or a session of a DBA's or an"
                              + " application's holding the same key; end it with SELECT"
                              + " pg_terminate_backend("
                              + h.pid()
                              + ")")
                  .orElse(", which has just let it go: start again"),
          LOCK_NOT_AVAILABLE,
          e);
    }
    setLocal(c, lockBefore, statementBefore);
  }

  /** Sets {@code lock_timeout} and {@code statement_timeout} for the rest of the transaction. */
  private static void setLocal(Connection c, String lockTimeout, String statementTimeout)
      throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT pg_catalog.set_config('lock_timeout', ?, true),"
                + " pg_catalog.set_config('statement_timeout', ?, true)")) {
      ps.setString(1, lockTimeout);
      ps.setString(2, statementTimeout);
      ps.execute();
    }
  }

  /**
   * Whether the owner table has the columns of {@link Home}, adding them where it lacks them (made
   * by an earlier version, or dropped by hand) and this role owns it; a role that does not is left
   * without them, as before they existed, rather than refused. Checked first: ALTER TABLE takes the
   * table's strongest lock and its owner's privilege even where it would add nothing. That lock
   * waits for every transaction on the table (another journal's batch, a session a DBA left in a
   * transaction): so it is waited for {@link #HOME_COLUMNS_WAIT} at most, and less than the
   * session's socket timeout (half of it, as the schema lock's wait), and an opening that cannot
   * have it goes on without the columns, to add them at a later one. Not under the schema lock:
   * every opening in the database waits for that one half the socket timeout, and behind a wait as
   * long as its own for the table (lease_ms=1000: half a second for the lock, a second for the
   * table) two openings behind a stuck upgrade refused each other; the wait for the table also
   * outlasted the socket timeout, so the driver gave up on the session first. No {@code
   * statement_timeout} runs meanwhile: the journal's, or a DBA's longer one, may cancel the
   * statement before its lock's wait ran out.
   */
  private static boolean homeColumns(Connection c, Statement s, JournalTables t)
      throws SQLException {
    try (ResultSet rs =
        s.executeQuery(
            // pg_catalog's = by name: it compares oid with oid only, and an oid = regclass in the
            // journal's schema, answering false, would be chosen over it (and a role that does not
            // own the table would then go on without the columns, unchecked for copies).
            "SELECT pg_catalog.count(*) FROM pg_catalog.pg_attribute"
                + " WHERE attrelid OPERATOR(pg_catalog.=) "
                + t.oid("'mesh_journal_owner'")
                + " AND NOT attisdropped"
                + " AND attname OPERATOR(pg_catalog.=)"
                + " ANY ('{cluster_id,database_oid}'::pg_catalog.name[])")) {
      rs.next();
      if (rs.getInt(1) == 2) {
        return true;
      }
    }
    Savepoint before = c.setSavepoint();
    try {
      long wait = HOME_COLUMNS_WAIT.toMillis();
      int socketMillis = c.getNetworkTimeout();
      if (socketMillis > 0) {
        wait = Math.min(wait, Math.max(1, socketMillis / 2));
      }
      setLocal(c, Long.toString(wait), "0");
      s.execute(
          "ALTER TABLE "
              + t.owner()
              + " ADD COLUMN IF NOT EXISTS cluster_id bigint,"
              + " ADD COLUMN IF NOT EXISTS database_oid bigint");
      return true;
    } catch (SQLException e) {
      if (!INSUFFICIENT_PRIVILEGE.equals(e.getSQLState())
          && !LOCK_NOT_AVAILABLE.equals(e.getSQLState())) {
        throw e;
      }
      // The rollback to the savepoint undoes the SET LOCAL too.
      c.rollback(before);
      return false;
    }
  }

  /** How long adding the columns of {@link Home} waits for the owner table's lock. */
  static final Duration HOME_COLUMNS_WAIT = Duration.ofSeconds(1);

  /** SQLSTATE {@code lock_not_available}: a {@code lock_timeout} ran out. */
  private static final String LOCK_NOT_AVAILABLE = "55P03";

  /** SQLSTATE {@code insufficient_privilege}: here, a role that does not own the table. */
  private static final String INSUFFICIENT_PRIVILEGE = "42501";

  /**
   * Where a journal's owner row was written: the cluster's system identifier ({@code
   * pg_control_system()}, the same on a streaming standby promoted in its place, new for a cluster
   * made anew by initdb) and the database's oid in it (new for a database made by {@code CREATE
   * DATABASE}, whether a dump is then restored into it or it copies a template).
   */
  record Home(long cluster, long database) {
    @Override
    public String toString() {
      return "database oid " + database + " of cluster " + Long.toUnsignedString(cluster);
    }
  }

  /**
   * The session's own {@link Home}. {@code pg_control_system()} is every role's to call unless a
   * DBA revoked it: then the refusal says which grant gives it back, since without it no copy of
   * the journal can be told from the journal.
   */
  static Home here(Connection c) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT (SELECT system_identifier FROM pg_catalog.pg_control_system()),"
                    + " (SELECT oid FROM pg_catalog.pg_database"
                    + " WHERE datname OPERATOR(pg_catalog.=) pg_catalog.current_database())")) {
      rs.next();
      return new Home(rs.getLong(1), rs.getLong(2));
    } catch (SQLException e) {
      if (!INSUFFICIENT_PRIVILEGE.equals(e.getSQLState())) {
        throw e;
      }
      throw new SQLException(
          e.getMessage()
              + ": the journal records the cluster it was written in (its system identifier, from"
              + " pg_catalog.pg_control_system()) to tell a copy from the original; give the role"
              + " it back with GRANT EXECUTE ON FUNCTION pg_catalog.pg_control_system() TO "
              + quotedRole(c, e),
          e.getSQLState(),
          e);
    }
  }

  /**
   * The session's role ({@code current_user}, whose privileges a call is checked against) as an SQL
   * identifier, quoted where it must be, for a statement an operator copies: a role named {@code
   * Mesh Steward} unquoted is another role, or no statement at all. From the server, whose quoting
   * rules (its keywords among them) are the ones that count; where it cannot say, the name the
   * session logged in with, always quoted.
   */
  private static String quotedRole(Connection c, SQLException refused) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT pg_catalog.quote_ident(pg_catalog.current_user()::pg_catalog.text)")) {
      rs.next();
      return rs.getString(1);
    } catch (SQLException e) {
      refused.addSuppressed(e);
      return quoted(c.getMetaData().getUserName());
    }
  }

  /** The {@link Home} journal {@code journal}'s owner row records, if it records one. */
  static Optional<Home> recorded(Connection c, JournalTables t, String journal)
      throws SQLException {
    return query(
        c,
        "SELECT cluster_id, database_oid FROM "
            + t.owner()
            + " WHERE journal OPERATOR(pg_catalog.=) ?"
            + " AND cluster_id IS NOT NULL AND database_oid IS NOT NULL",
        journal,
        rs -> rs.next() ? Optional.of(new Home(rs.getLong(1), rs.getLong(2))) : Optional.empty());
  }

  /**
   * Rolls back {@code c}'s transaction after {@code e} and answers {@code e}: a session the server
   * ended (terminated, shut down) has rolled back already, and a rollback on it would throw "This
   * connection has been closed." in place of {@code e}, which says why it ended.
   */
  static SQLException rolledBack(Connection c, SQLException e) {
    try {
      if (!c.isClosed()) {
        c.rollback();
      }
    } catch (SQLException r) {
      e.addSuppressed(r);
    }
    return e;
  }

  /**
   * Refuses to go on where the journal's owner row, its marker since its first opening, is in
   * another schema than {@code t}'s (the one {@link PostgresLocation#session} pinned): a role or
   * database setting that changed the search path, or a schema ahead of the journal's gaining
   * tables of the same names, would otherwise open fresh or foreign tables, and every grant's
   * budget would come back. Where the URL names no schema, a row in another schema is refused even
   * beside one in the session's own, since which is the journal is then a guess; where it names
   * one, that one is taken. Schemas this role may not read are not seen.
   *
   * @throws JournalException {@code MISPLACED}, naming the schemas that hold the journal
   */
  static void checkHome(Connection c, JournalTables t, String journal, PostgresLocation location)
      throws SQLException, JournalException {
    String home = t.schema();
    List<String> others = new ArrayList<>();
    try (Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT n.nspname FROM pg_catalog.pg_class t"
                    + " JOIN pg_catalog.pg_namespace n"
                    + " ON n.oid OPERATOR(pg_catalog.=) t.relnamespace"
                    + " WHERE t.relname OPERATOR(pg_catalog.=) 'mesh_journal_owner'"
                    + " AND t.relkind OPERATOR(pg_catalog.=) ANY ('{r,p}'::pg_catalog.\"char\"[])"
                    + " AND n.nspname OPERATOR(pg_catalog.<>) "
                    + t.schemaLiteral()
                    + "::pg_catalog.name"
                    // pg_catalog's by name: it has no name !~~ name, and one in the session's
                    // schema (with a name on each side) would be taken over its name !~~ text.
                    + " AND n.nspname OPERATOR(pg_catalog.!~~) 'pg\\_%'"
                    + " AND pg_catalog.has_schema_privilege(n.oid, 'USAGE')"
                    // Readable where the look for the row is: SELECT on its journal column, granted
                    // on the table or on the column alone (a grant the privilege check takes as
                    // enough to write there, and under which the table-wide privilege is not held).
                    + " AND EXISTS (SELECT 1 FROM pg_catalog.pg_attribute a"
                    + " WHERE a.attrelid OPERATOR(pg_catalog.=) t.oid"
                    + " AND a.attname OPERATOR(pg_catalog.=) 'journal' AND NOT a.attisdropped"
                    + " AND pg_catalog.has_column_privilege(t.oid, a.attnum, 'SELECT'))"
                    + " ORDER BY n.nspname")) {
      while (rs.next()) {
        others.add(rs.getString(1));
      }
    }
    List<String> holding = new ArrayList<>();
    for (String schema : others) {
      if (ownerRowIn(c, new JournalTables(schema), journal)) {
        holding.add(schema);
      }
    }
    if (holding.isEmpty()) {
      return;
    }
    boolean here = exists(c, t, "mesh_journal_owner") && ownerRowIn(c, t, journal);
    if (here && location.schema().isPresent()) {
      return;
    }
    throw new JournalException(
        JournalException.Reason.MISPLACED,
        "journal "
            + journal
            + " at "
            + location
            + (here
                ? " has an owner row in mesh_journal_owner of schema " + home + ", where this"
                : " has no owner row in schema " + home + ", where this")
            + " session's tables are, and one in schema "
            + String.join(", ", holding)
            + (here
                ? ", so which holds the journal is a guess"
                : ", so its records are there and opening here would start it afresh, every"
                    + " grant's budget back")
            + ". Name the journal's schema in the URL (?schema="
            + holding.getFirst()
            + "), or if a role's or the database's search_path was changed, change it back",
        null);
  }

  /** Whether the owner table of {@code t}'s schema has a row for journal {@code journal}. */
  private static boolean ownerRowIn(Connection c, JournalTables t, String journal)
      throws SQLException {
    return query(
        c,
        "SELECT 1 FROM " + t.owner() + " WHERE journal OPERATOR(pg_catalog.=) ?",
        journal,
        ResultSet::next);
  }

  /** {@code name} as a quoted SQL identifier. */
  private static String quoted(String name) {
    return JournalTables.quotedIdentifier(name);
  }

  /**
   * The key of journal {@code journal}'s advisory lock in the schema of {@code t} (the one {@link
   * PostgresLocation#session} pinned), as the server names it: a lock is per database, and two
   * journals of one name in two schemas are two journals, each with its own writer. The schema is
   * the server's name for it, not the URL's spelling, so every URL that reaches one schema (named
   * or defaulted, through {@code schema=} or the driver's {@code currentSchema}) takes one lock. In
   * {@code public} the key is the one earlier versions took for every schema, the journal's name
   * alone, so that a steward of an earlier version and one of this version still exclude each other
   * on the journals those versions kept; elsewhere the schema's name comes first, separated by a
   * NUL (which neither a schema's name nor a journal's, stored as text, can hold).
   */
  static long lockKey(JournalTables t, String journal) {
    return lockKey(t.schema(), journal);
  }

  /** The key of journal {@code journal}'s advisory lock in schema {@code schema}. */
  static long lockKey(String schema, String journal) {
    return lockKey(
        "public".equals(schema)
            ? "mesh-journal " + journal
            : "mesh-journal\0" + schema + "\0" + journal);
  }

  /** Tries the journal's session-level advisory lock; true when this session now holds it. */
  static boolean tryLock(Connection c, JournalTables t, String journal) throws SQLException {
    return tryLock(c, lockKey(t, journal));
  }

  /** Tries the session-level advisory lock {@code key}; true when this session now holds it. */
  static boolean tryLock(Connection c, long key) throws SQLException {
    return tryLockAt(c, key).taken();
  }

  /**
   * An attempt at an advisory lock: the pid of the server process that answered it, whether that
   * session took the lock, and whether it held the lock before the attempt (then not taken, and
   * left as it was). The pid is the lock's holder where either is true.
   */
  record LockAttempt(long backend, boolean taken, boolean heldAlready) {}

  /**
   * Tries the session-level advisory lock {@code key} and answers what the server process that
   * answered found (see {@link LockAttempt}). In one statement, so that the pid is that of the
   * session holding or taking the lock however the connection is pooled. A session's advisory locks
   * stack, so taking one the session holds already is granted: on a connection made for the purpose
   * that means a proxy handed another client's server session on, and the lock would exclude
   * nothing.
   */
  static LockAttempt tryLockAt(Connection c, long key) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            // Materialized, so that the lock table is read before the lock is tried.
            "WITH before AS MATERIALIZED (SELECT pg_catalog.count(*) AS held"
                + " FROM pg_catalog.pg_locks l"
                + " WHERE l.locktype OPERATOR(pg_catalog.=) 'advisory' AND l.granted"
                + " AND l.pid OPERATOR(pg_catalog.=) pg_catalog.pg_backend_pid()"
                + " AND l.objsubid OPERATOR(pg_catalog.=) 1::pg_catalog.int2"
                + " AND l.classid::pg_catalog.int8 OPERATOR(pg_catalog.=) ?"
                + " AND l.objid::pg_catalog.int8 OPERATOR(pg_catalog.=) ?"
                + " AND l.database OPERATOR(pg_catalog.=) (SELECT oid FROM pg_catalog.pg_database"
                + " WHERE datname OPERATOR(pg_catalog.=) pg_catalog.current_database()))"
                + " SELECT b.held OPERATOR(pg_catalog.>) 0,"
                + " CASE WHEN b.held OPERATOR(pg_catalog.>) 0 THEN false"
                + " ELSE pg_catalog.pg_try_advisory_lock(?) END,"
                + " pg_catalog.pg_backend_pid() FROM before b")) {
      ps.setLong(1, key >>> 32);
      ps.setLong(2, key & 0xffffffffL);
      ps.setLong(3, key);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return new LockAttempt(rs.getLong(3), rs.getBoolean(2), rs.getBoolean(1));
      }
    }
  }

  /** The pid of the server process answering on {@code c}. */
  static long backendPid(Connection c) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT pg_catalog.pg_backend_pid()")) {
      rs.next();
      return rs.getLong(1);
    }
  }

  /**
   * What a journal's owner row holds in its epoch column: {@code found} false where there is no
   * row; {@code epoch} null where the row holds NULL, which no steward writes (the column is NOT
   * NULL as the journal creates it) and which the driver would hand back as 0, an epoch no steward
   * ever had.
   */
  record OwnerEpoch(boolean found, @Nullable Long epoch) {
    /** No owner row. */
    static final OwnerEpoch NONE = new OwnerEpoch(false, null);

    OwnerEpoch {
      if (!found && epoch != null) {
        throw new IllegalArgumentException("an epoch without an owner row");
      }
    }

    /** Whether the row holds NULL. */
    boolean nulled() {
      return found && epoch == null;
    }

    /** Read from {@code rs}'s current row: the epoch at {@code column}, found or not after it. */
    private static OwnerEpoch read(ResultSet rs, int column) throws SQLException {
      long value = rs.getLong(column);
      boolean nulled = rs.wasNull();
      if (!rs.getBoolean(column + 1)) {
        return NONE;
      }
      return new OwnerEpoch(true, nulled ? null : value);
    }
  }

  /** A journal's owner row's epoch and the pid of the server process that read it. */
  record EpochAt(OwnerEpoch owner, long backend) {}

  /**
   * {@link #epoch}, and in the same statement the pid of the server process answering it: the
   * heartbeat's check that the epoch is still its journal's and that the session holding the lock
   * is the one it speaks to.
   */
  static EpochAt epochAt(Connection c, JournalTables t, String journal) throws SQLException {
    return query(
        c,
        // A row in the FROM, so that a row holding NULL is told from no row at all.
        "SELECT o.epoch, o.journal IS NOT NULL, pg_catalog.pg_backend_pid()"
            + " FROM (SELECT ?::pg_catalog.text AS j) AS k LEFT JOIN "
            + t.owner()
            + " AS o ON o.journal OPERATOR(pg_catalog.=) k.j",
        journal,
        rs -> {
          rs.next();
          OwnerEpoch owner = OwnerEpoch.read(rs, 1);
          return new EpochAt(owner, rs.getLong(3));
        });
  }

  /**
   * The epoch journal {@code journal}'s owner row holds where it is none a steward can raise: NULL
   * (as text) or not above 0, possible only once a DBA dropped the column's NOT NULL or CHECK.
   * Raised, NULL stays NULL (read as 0, the epoch of no journal) and 0 or less gives an epoch a
   * steward never had; empty where the row holds a positive epoch, or there is no row.
   */
  static Optional<String> unraisableEpoch(Connection c, JournalTables t, String journal)
      throws SQLException {
    return query(
        c,
        "SELECT coalesce(epoch::pg_catalog.text, 'NULL') FROM "
            + t.owner()
            + " WHERE journal OPERATOR(pg_catalog.=) ?"
            + " AND (epoch IS NULL OR epoch OPERATOR(pg_catalog.<=) 0)",
        journal,
        rs -> rs.next() ? Optional.of(rs.getString(1)) : Optional.<String>empty());
  }

  /** The session holding a journal's lock: its backend's pid, and the session in words. */
  record LockHolding(long pid, String session) {}

  /**
   * PostgreSQL's table-level lock conflicts (its documentation, "Explicit Locking"): for each mode
   * as {@code pg_locks} names it, the modes held by another session that make it wait.
   */
  private static final Map<String, Set<String>> CONFLICTS =
      Map.of(
          "AccessShareLock", Set.of("AccessExclusiveLock"),
          "RowShareLock", Set.of("ExclusiveLock", "AccessExclusiveLock"),
          "RowExclusiveLock",
              Set.of("ShareLock", "ShareRowExclusiveLock", "ExclusiveLock", "AccessExclusiveLock"),
          "ShareUpdateExclusiveLock",
              Set.of(
                  "ShareUpdateExclusiveLock",
                  "ShareLock",
                  "ShareRowExclusiveLock",
                  "ExclusiveLock",
                  "AccessExclusiveLock"),
          "ShareLock",
              Set.of(
                  "RowExclusiveLock",
                  "ShareUpdateExclusiveLock",
                  "ShareRowExclusiveLock",
                  "ExclusiveLock",
                  "AccessExclusiveLock"),
          "ShareRowExclusiveLock",
              Set.of(
                  "RowExclusiveLock",
                  "ShareUpdateExclusiveLock",
                  "ShareLock",
                  "ShareRowExclusiveLock",
                  "ExclusiveLock",
                  "AccessExclusiveLock"),
          "ExclusiveLock",
              Set.of(
                  "RowShareLock",
                  "RowExclusiveLock",
                  "ShareUpdateExclusiveLock",
                  "ShareLock",
                  "ShareRowExclusiveLock",
                  "ExclusiveLock",
                  "AccessExclusiveLock"),
          "AccessExclusiveLock",
              Set.of(
                  "AccessShareLock",
                  "RowShareLock",
                  "RowExclusiveLock",
                  "ShareUpdateExclusiveLock",
                  "ShareLock",
                  "ShareRowExclusiveLock",
                  "ExclusiveLock",
                  "AccessExclusiveLock"));

  /**
   * The session holding advisory lock {@code key} (a journal's) in this database, in words for an
   * operator (pid, client, since when, what it is doing, as far as this role may see), or empty
   * when none does any more.
   */
  static java.util.Optional<LockHolding> lockHolder(Connection c, long key) throws SQLException {
    return lockHolder(c, key, 1);
  }

  /**
   * The session holding advisory lock {@code key} in this database, as {@link
   * #lockHolder(Connection, long)}: in its one-{@code bigint} form where {@code objsubid} is 1, in
   * its two-integer form (the high and low 32 bits) where it is 2.
   */
  private static java.util.Optional<LockHolding> lockHolder(Connection c, long key, int objsubid)
      throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            // A bigint key is held as two oids: its high and its low 32 bits.
            "SELECT l.pid, a.client_addr, a.backend_start, a.state, a.wait_event"
                + " FROM pg_catalog.pg_locks l LEFT JOIN pg_catalog.pg_stat_activity a"
                + " ON a.pid OPERATOR(pg_catalog.=) l.pid"
                + " WHERE l.locktype OPERATOR(pg_catalog.=) 'advisory' AND l.granted"
                + " AND l.objsubid OPERATOR(pg_catalog.=) ?::pg_catalog.int2"
                + " AND l.classid::pg_catalog.int8 OPERATOR(pg_catalog.=) ?"
                + " AND l.objid::pg_catalog.int8 OPERATOR(pg_catalog.=) ?"
                + " AND l.database OPERATOR(pg_catalog.=) (SELECT oid FROM pg_catalog.pg_database"
                + " WHERE datname OPERATOR(pg_catalog.=) pg_catalog.current_database())")) {
      ps.setInt(1, objsubid);
      ps.setLong(2, key >>> 32);
      ps.setLong(3, key & 0xffffffffL);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          return java.util.Optional.empty();
        }
        return java.util.Optional.of(new LockHolding(rs.getLong(1), session(rs)));
      }
    }
  }

  /**
   * The session of {@code rs}'s row in words: its columns are a pid, then {@code
   * pg_stat_activity}'s {@code client_addr}, {@code backend_start}, {@code state} and {@code
   * wait_event} (null where this role may not see them).
   */
  private static String session(ResultSet rs) throws SQLException {
    StringBuilder b = new StringBuilder("pid ").append(rs.getLong(1));
    if (rs.getString(2) != null) {
      b.append(" from ").append(rs.getString(2));
    }
    if (rs.getString(3) != null) {
      b.append(", connected since ").append(rs.getString(3));
    }
    if (rs.getString(4) != null) {
      b.append(", ").append(rs.getString(4));
    }
    if (rs.getString(5) != null) {
      b.append(", waiting on ").append(rs.getString(5));
    }
    return b.toString();
  }

  /**
   * Whether {@code e} is the server's refusal of a statement whose {@code lock_timeout} ran out,
   * not one made of it here: the schema lock's refusal names its holder already and carries the
   * server's as its cause.
   */
  static boolean lockTimedOut(SQLException e) {
    return LOCK_NOT_AVAILABLE.equals(e.getSQLState()) && e.getCause() == null;
  }

  /**
   * A statement's wait for a lock on one of the journal's tables: {@code table} by its name, {@code
   * mode} as {@code pg_locks} names the mode the statement takes there ({@code RowExclusiveLock}).
   */
  record Wait(String table, String mode) {
    Wait {
      if (!CONFLICTS.containsKey(mode)) {
        throw new IllegalArgumentException("not a table lock mode: " + mode);
      }
    }

    /** A read's wait ({@code SELECT}): only an {@code ACCESS EXCLUSIVE} holder makes it wait. */
    static Wait read(String table) {
      return new Wait(table, "AccessShareLock");
    }

    /** A write's wait ({@code INSERT}, {@code UPDATE}, {@code DELETE}). */
    static Wait write(String table) {
      return new Wait(table, "RowExclusiveLock");
    }
  }

  /**
   * {@code e}, or, where it is the server's refusal at the journal's {@code lock_timeout} ({@code
   * limit}), a refusal of the same SQLSTATE naming the sessions whose lock on a table of {@code
   * waits} conflicts with the statement's (see {@link #lockTimedOut(Connection, JournalTables,
   * Duration, Wait...)}), asked on {@code c} once its transaction is rolled back: the server's
   * words name neither the table nor who holds it. {@code e} itself where that cannot be asked.
   */
  static SQLException holdersNamed(
      Connection c, JournalTables t, Duration limit, SQLException e, Wait... waits) {
    if (!lockTimedOut(e)) {
      return e;
    }
    try {
      if (c.isClosed()) {
        return e;
      }
      if (!c.getAutoCommit()) {
        c.rollback();
      }
      return new SQLException(lockTimedOut(c, t, limit, waits), e.getSQLState(), e);
    } catch (SQLException notKnown) {
      e.addSuppressed(notKnown);
      return e;
    }
  }

  /**
   * Why a statement waiting as {@code waits} say (on the journal's tables) was refused at the
   * journal's {@code lock_timeout} ({@code limit}, the URL's {@code lock_timeout_ms}): the other
   * sessions holding a lock on one of those tables in a mode that conflicts with the one waited for
   * there, as far as this role may see them, and how to end one. A reader's lock beside a DBA's was
   * named too, and as the lowest pid, the one to end. Where none conflicts (a wait for a row's
   * lock, a session holding the owner row {@code FOR UPDATE}, shows as a weaker lock on its table;
   * a wait queued behind another's wait), every holder is named. Asked on {@code c} outside the
   * failed transaction (the caller rolled it back), on the failing path only.
   */
  static String lockTimedOut(Connection c, JournalTables t, Duration limit, Wait... waits)
      throws SQLException {
    List<String> tables = new ArrayList<>();
    List<String> oids = new ArrayList<>();
    // The mode waited for on each lock's table, so that a holder is matched against its own.
    StringBuilder modeOf = new StringBuilder("CASE");
    for (Wait w : waits) {
      tables.add(w.table());
      oids.add(t.oid(JournalTables.literal(w.table())));
      modeOf
          .append(" WHEN l.relation OPERATOR(pg_catalog.=) ")
          .append(oids.getLast())
          .append(" THEN ")
          .append(JournalTables.literal(w.mode()));
    }
    modeOf.append(" END");
    List<LockHolding> holders = new ArrayList<>();
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT DISTINCT l.pid, a.client_addr, a.backend_start, a.state, a.wait_event,"
                + " l.mode, "
                + modeOf
                + " FROM pg_catalog.pg_locks l LEFT JOIN pg_catalog.pg_stat_activity a"
                + " ON a.pid OPERATOR(pg_catalog.=) l.pid"
                + " WHERE l.locktype OPERATOR(pg_catalog.=) 'relation' AND l.granted"
                + " AND l.pid OPERATOR(pg_catalog.<>) pg_catalog.pg_backend_pid()"
                + " AND l.relation OPERATOR(pg_catalog.=) ANY (ARRAY["
                + String.join(", ", oids)
                + "])"
                + " ORDER BY l.pid")) {
      List<LockHolding> conflicting = new ArrayList<>();
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          LockHolding h = new LockHolding(rs.getLong(1), session(rs));
          // One row per mode a session holds: each session once.
          if (holders.isEmpty() || holders.getLast().pid() != h.pid()) {
            holders.add(h);
          }
          if (CONFLICTS.getOrDefault(rs.getString(7), Set.of()).contains(rs.getString(6))
              && (conflicting.isEmpty() || conflicting.getLast().pid() != h.pid())) {
            conflicting.add(h);
          }
        }
      }
      if (!conflicting.isEmpty()) {
        holders = conflicting;
      }
    }
    String waited =
        "waited lock_timeout_ms="
            + limit.toMillis()
            + " for a lock on "
            + String.join(" or ", tables)
            + " that another session holds (a DBA's LOCK TABLE or ALTER TABLE, an index being"
            + " built, a transaction left open), and was refused";
    if (holders.isEmpty()) {
      return waited + "; no session holds one any more: start again";
    }
    return waited
        + "; holding a lock there: "
        + String.join("; ", holders.stream().map(LockHolding::session).toList())
        + ". End the transaction, or the session with SELECT pg_terminate_backend("
        + holders.getFirst().pid()
        + "), or give the journal a longer lock_timeout_ms in the URL";
  }

  /**
   * Releases the journal's advisory lock held by this session. Closing the session releases it too,
   * but only once the server has ended the session, a moment after the client's close returns; a
   * clean close releases it first, so a successor opening right after is not refused LOCKED.
   */
  static void unlock(Connection c, JournalTables t, String journal) throws SQLException {
    unlock(c, lockKey(t, journal));
  }

  /** Releases the advisory lock {@code key} held by this session (see the other unlock). */
  static void unlock(Connection c, long key) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("SELECT pg_catalog.pg_advisory_unlock(?)")) {
      ps.setLong(1, key);
      ps.executeQuery().close();
    }
  }

  /** Makes something of a query's rows. */
  @FunctionalInterface
  interface Rows<T> {
    /** Reads {@code rs}, positioned before its first row. */
    T read(ResultSet rs) throws SQLException;
  }

  /**
   * Runs {@code sql}, whose one parameter is the journal's name, and answers what {@code rows}
   * makes of its result. The epoch statements and {@link PostgresSnapshotStore}'s read of the
   * latest snapshot, each a statement about one journal, are run through it.
   */
  static <T> T query(Connection c, String sql, String journal, Rows<T> rows) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setString(1, journal);
      try (ResultSet rs = ps.executeQuery()) {
        return rows.read(rs);
      }
    }
  }

  /**
   * Raises the journal's epoch by one (from 1 for a new journal) and returns what the row then
   * holds, committed: NULL where it held NULL, which a raise leaves NULL (a DBA's edit since the
   * opening checked it).
   */
  static OwnerEpoch raiseEpoch(Connection c, JournalTables t, String journal) throws SQLException {
    return query(
        c,
        "INSERT INTO "
            + t.owner()
            + " AS o (journal, epoch) VALUES (?, 1)"
            + " ON CONFLICT (journal) DO UPDATE SET epoch = o.epoch OPERATOR(pg_catalog.+) 1"
            + " RETURNING epoch",
        journal,
        JournalSchema::raised);
  }

  /** The epoch a raise's {@code RETURNING epoch} gives in {@code rs}. */
  private static OwnerEpoch raised(ResultSet rs) throws SQLException {
    rs.next();
    long epoch = rs.getLong(1);
    return new OwnerEpoch(true, rs.wasNull() ? null : epoch);
  }

  /**
   * {@link #raiseEpoch(Connection, JournalTables, String)}, recording {@code here} in the owner
   * row: where it records none yet, or, {@code adopt}ing, in place of the one it records.
   */
  static OwnerEpoch raiseEpoch(
      Connection c, JournalTables t, String journal, Home here, boolean adopt) throws SQLException {
    String keep = adopt ? "EXCLUDED.%1$s" : "coalesce(o.%1$s, EXCLUDED.%1$s)";
    try (PreparedStatement ps =
        c.prepareStatement(
            "INSERT INTO "
                + t.owner()
                + " AS o (journal, epoch, cluster_id, database_oid)"
                + " VALUES (?, 1, ?, ?) ON CONFLICT (journal) DO UPDATE SET"
                + " epoch = o.epoch OPERATOR(pg_catalog.+) 1,"
                + " cluster_id = "
                + keep.formatted("cluster_id")
                + ", database_oid = "
                + keep.formatted("database_oid")
                + " RETURNING epoch")) {
      ps.setString(1, journal);
      ps.setLong(2, here.cluster());
      ps.setLong(3, here.database());
      try (ResultSet rs = ps.executeQuery()) {
        return raised(rs);
      }
    }
  }

  /**
   * What the journal's owner row holds in its epoch. Its {@code =} pg_catalog's by name: a batch
   * asks on the journal's session, whose path a trigger may have changed.
   */
  static OwnerEpoch epoch(Connection c, JournalTables t, String journal) throws SQLException {
    return query(
        c,
        "SELECT epoch, true FROM " + t.owner() + " WHERE journal OPERATOR(pg_catalog.=) ?",
        journal,
        rs -> rs.next() ? OwnerEpoch.read(rs, 1) : OwnerEpoch.NONE);
  }

  /**
   * Streams every record line of the journal to {@code sink} in sequence order, in one snapshot, a
   * page at a time (rows are not loaded at once); a missing sequence (a row deleted) is refused
   * here, since the lines alone would not show where.
   */
  static void readLines(Connection c, JournalTables t, String journal, LineSink sink)
      throws SQLException, JournalException {
    readLines(c, t, journal, Duration.ZERO, sink);
  }

  /**
   * {@link #readLines(Connection, JournalTables, String, LineSink)}, speaking to the server at
   * least every {@code keepAlive} (none when zero) while the sink works: the rows of a fetch are
   * taken between two round trips, and on a session with an idle-in-transaction timeout (a
   * journal's, set to its lease) the server would otherwise end the session, and the read, once
   * taking them outlasts it.
   */
  static void readLines(
      Connection c, JournalTables t, String journal, Duration keepAlive, LineSink sink)
      throws SQLException, JournalException {
    if (exists(c, t, "mesh_journal_record")) {
      readLines(c, t, journal, 0, Long.MAX_VALUE, keepAlive, ReadBounds.DEFAULT, sink);
    }
  }

  /**
   * Refuses to read where row-level security applies to this session on {@code
   * mesh_journal_record}: a DBA's policy may hide some of the journal's rows from the role, and the
   * rows it leaves could form a chain of their own (the first records of the history), which an
   * opening would take for the journal and an export would write as the whole.
   */
  private static void refuseHiddenRows(Connection c, JournalTables t) throws SQLException {
    Optional<String> role = rowSecurityFor(c, t, "mesh_journal_record");
    if (role.isPresent()) {
      throw new SQLException(
          "row-level security applies to role "
              + role.get()
              + " on mesh_journal_record, so a policy may hide records of the journal from it"
              + " and a part of the journal would read as the whole; disable it on the table"
              + " (ALTER TABLE "
              + qualified(c, t, "mesh_journal_record")
              + " DISABLE ROW LEVEL SECURITY) or give the role BYPASSRLS",
          INSUFFICIENT_PRIVILEGE);
    }
  }

  /**
   * The session's role where row-level security applies to it on table {@code table} of the schema
   * of {@code t} (a policy may hide rows from it), or empty where it does not.
   */
  static Optional<String> rowSecurityFor(Connection c, JournalTables t, String table)
      throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT pg_catalog.row_security_active("
                + t.oid("?::pg_catalog.text")
                + "), pg_catalog.current_user()")) {
      ps.setString(1, table);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getBoolean(1) ? Optional.of(rs.getString(2)) : Optional.empty();
      }
    }
  }

  /** Takes stored lines one at a time, in sequence order. */
  @FunctionalInterface
  interface LineSink {
    /** Takes record {@code seq}'s line. */
    void accept(long seq, byte[] line) throws JournalException;
  }

  /**
   * The longest record line read: the file journal's ({@link LineReader#MAX_LINE_BYTES}); a record
   * is kilobytes, so a longer row is damage or a DBA's, refused before it is fetched.
   */
  static final int MAX_LINE_BYTES = LineReader.MAX_LINE_BYTES;

  /**
   * The most bytes of lines fetched in one round trip (a page), except that a page holds at least
   * one line: a journal of many large records is read in bounded memory.
   */
  static final long PAGE_BYTES = 8L << 20;

  /** The most rows of a page, whatever their size; their sizes are asked before their lines. */
  private static final int PAGE_ROWS = 1000;

  /**
   * How much a read holds at once: lines of at most {@code maxLine} bytes, pages of at most {@code
   * pageBytes} (or one line); the defaults are {@link #MAX_LINE_BYTES} and {@link #PAGE_BYTES},
   * smaller only in tests.
   */
  record ReadBounds(int maxLine, long pageBytes) {
    static final ReadBounds DEFAULT = new ReadBounds(MAX_LINE_BYTES, PAGE_BYTES);

    ReadBounds {
      if (maxLine < 1 || pageBytes < 1) {
        throw new IllegalArgumentException("read bounds must be positive");
      }
    }
  }

  /**
   * Streams the lines of records {@code from .. to - 1} of the journal in sequence order, in one
   * snapshot, a page at a time (rows are not loaded at once); a missing sequence is refused. With
   * {@code to} {@link Long#MAX_VALUE}, the records from {@code from} to the last.
   */
  static void readLines(
      Connection c, JournalTables t, String journal, long from, long to, LineSink sink)
      throws SQLException, JournalException {
    readLines(c, t, journal, from, to, Duration.ZERO, ReadBounds.DEFAULT, sink);
  }

  /**
   * The read of every other form. Each page's row sizes are asked first ({@code octet_length},
   * which the server answers without sending the line), so a row over {@code bounds.maxLine()} is
   * refused by its sequence number before a byte of it is fetched, and the lines of a page are
   * fetched only up to {@code bounds.pageBytes()}: a driver's fetch size counts rows, and a
   * thousand rows of a DBA's making (or of an honest journal's large records) could be gigabytes.
   * The pages are read in one transaction at {@code REPEATABLE READ}, so they are one snapshot, as
   * one statement's rows were.
   */
  static void readLines(
      Connection c,
      JournalTables t,
      String journal,
      long from,
      long to,
      Duration keepAlive,
      ReadBounds bounds,
      LineSink sink)
      throws SQLException, JournalException {
    refuseHiddenRows(c, t);
    refuseNondeterministicCollations(c, t);
    long every = keepAlive.toNanos();
    boolean auto = c.getAutoCommit();
    c.setAutoCommit(false);
    String range =
        " FROM "
            + t.record()
            + " WHERE journal OPERATOR(pg_catalog.=) ? AND seq OPERATOR(pg_catalog.>=) ?"
            + " AND seq OPERATOR(pg_catalog.<) ? ORDER BY seq";
    try (Statement ping = c.createStatement();
        PreparedStatement sizes =
            c.prepareStatement(
                "SELECT seq, pg_catalog.octet_length(line)"
                    + range
                    // One row past a full page: the row after the page's last is seen, so a second
                    // row of that seq is not left to the next page, which starts after it.
                    + " LIMIT "
                    + (PAGE_ROWS + 1));
        PreparedStatement lines = c.prepareStatement("SELECT seq, line" + range)) {
      ping.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ");
      long next = from;
      long spoke = System.nanoTime();
      while (true) {
        long end = pageEnd(sizes, journal, next, to, bounds);
        if (end == next) {
          break;
        }
        lines.setString(1, journal);
        lines.setLong(2, next);
        lines.setLong(3, end);
        try (ResultSet rs = lines.executeQuery()) {
          while (rs.next()) {
            if (every > 0 && System.nanoTime() - spoke >= every) {
              // A statement of its own in the same transaction; the page is already here.
              ping.execute("SELECT 1");
              spoke = System.nanoTime();
            }
            long seq = rs.getLong(1);
            checkNext(seq, next);
            sink.accept(seq, rs.getBytes(2));
            next++;
          }
        }
        if (next != end) {
          throw missing(next, "the next row holds none");
        }
      }
      c.commit();
      if (to != Long.MAX_VALUE && next != to) {
        throw missing(next, "records up to " + (to - 1) + " were committed");
      }
    } finally {
      // A session the server ended has already said why (in what was thrown): do not bury that
      // under "This connection has been closed."
      if (!c.isClosed()) {
        c.setAutoCommit(auto);
      }
    }
  }

  /**
   * The end (exclusive) of the page of rows from {@code next}: as many as {@link #PAGE_ROWS} and
   * {@code bounds.pageBytes()} allow, at least one; {@code next} where no row is left. Refuses a
   * gap, a second row of a seq, and a row longer than {@code bounds.maxLine()}.
   */
  private static long pageEnd(
      PreparedStatement sizes, String journal, long next, long to, ReadBounds bounds)
      throws SQLException, JournalException {
    sizes.setString(1, journal);
    sizes.setLong(2, next);
    sizes.setLong(3, to);
    long end = next;
    long bytes = 0;
    try (ResultSet rs = sizes.executeQuery()) {
      while (rs.next()) {
        long seq = rs.getLong(1);
        checkNext(seq, end);
        long length = rs.getLong(2);
        if (rs.wasNull()) {
          // A DBA who dropped the column's NOT NULL and emptied the row: without this the line
          // came to the record decoder as null, and opening ended in a NullPointerException.
          throw new JournalException(
              JournalException.Reason.CORRUPT,
              seq,
              "is a row of mesh_journal_record whose line is NULL: the journal never stores one"
                  + " (the column is NOT NULL as the journal creates it), so the row, or the"
                  + " column's constraint, was changed by other than the journal",
              null);
        }
        if (length > bounds.maxLine()) {
          throw new JournalException(
              JournalException.Reason.CORRUPT,
              seq,
              "is a row of "
                  + length
                  + " bytes in mesh_journal_record, longer than the "
                  + bounds.maxLine()
                  + " bytes a record may be (a record is kilobytes): it was not fetched; the row"
                  + " was written by other than the journal, or damaged",
              null);
        }
        if (end - next == PAGE_ROWS || (end > next && bytes + length > bounds.pageBytes())) {
          break;
        }
        bytes += length;
        end++;
      }
    }
    return end;
  }

  /** Refuses row {@code seq} where record {@code next} is due: a gap, or a seq stored twice. */
  private static void checkNext(long seq, long next) throws JournalException {
    if (seq == next - 1) {
      // In seq order a second row of a seq comes right after the first: the table's key no
      // longer keeps one row per record, and calling the next record missing would mislead.
      throw new JournalException(
          JournalException.Reason.CORRUPT,
          seq,
          "is stored in more than one row of mesh_journal_record: its primary key (journal,"
              + " seq) was dropped or replaced, and which row is the record is not known",
          null);
    }
    if (seq != next) {
      throw missing(next, "the next row holds seq " + seq);
    }
  }

  private static JournalException missing(long seq, String why) {
    return new JournalException(
        JournalException.Reason.CORRUPT, seq, "is missing from the database (" + why + ")", null);
  }

  /**
   * The enabled triggers and the rules on the session's {@code mesh_journal_record} that the
   * journal did not create, in words ({@code trigger t}, {@code rule r}): what can make an insert
   * store fewer rows than it was given.
   */
  static List<String> rowDroppers(Connection c, JournalTables t) throws SQLException {
    List<String> words = new ArrayList<>();
    for (Carried on : carried(c, t, "mesh_journal_record")) {
      words.add(on.toString());
    }
    return words;
  }

  /**
   * Refuses a session whose journal tables carry what could change the records or the epoch behind
   * the journal's back, before anything is raised: on {@code mesh_journal_record}, a trigger run
   * after a row is inserted ({@code AFTER INSERT}, deferred or not), which may update or delete the
   * rows once the batch's own checks (the insert's {@code RETURNING}) have passed them, so the
   * batch would be acknowledged and its receipts handed out while the table holds other records; on
   * {@code mesh_journal_owner}, a trigger on insert or update, which may keep the raise of an epoch
   * from taking (and with it the fence against a predecessor) or change it afterwards; and a rule
   * on either. A {@code BEFORE INSERT} trigger on the records is left to the batch's check, which
   * sees what it did, and a trigger on update or delete of a record (a guard against edits, which
   * the journal never makes) is left alone.
   */
  static void refuseUncheckedWriters(Connection c, JournalTables t) throws SQLException {
    List<String> found = new ArrayList<>();
    List<String> remedies = new ArrayList<>();
    collectCarried(
        c,
        t,
        "mesh_journal_record",
        type -> (type & (TRIGGER_BEFORE | TRIGGER_INSTEAD)) == 0 && (type & TRIGGER_INSERT) != 0,
        found,
        remedies);
    collectCarried(c, t, "mesh_journal_owner", JournalSchema::onWrite, found, remedies);
    refuseCarried(
        found,
        remedies,
        "run after a record is inserted, or as an epoch is raised, it may change what the journal"
            + " stored after the journal checked it, so a batch could be acknowledged while the"
            + " table holds other records, or a stopped steward go on writing",
        "start the steward");
  }

  /**
   * Refuses a snapshot save where {@code mesh_journal_snapshot} carries a trigger run on insert,
   * update or delete (before or after the row is written) or a rule, naming each and the statement
   * that takes it off, before anything is written: one may store another row than the save gave
   * (another journal's name, other bytes), and the save was acknowledged while its steward's next
   * start found another steward's snapshot, or none of its own. A delete's counts as well: the save
   * deletes the journal's older rows in its own transaction, after writing the new one, so a
   * trigger on that delete (one for each statement runs even where no row goes) may change the row
   * just written. Asked at every save, as the collations are: a DBA may add one while the steward
   * runs. Asked in the save's transaction once it holds the table's lock, which {@code CREATE
   * TRIGGER} waits for, so a trigger the check did not see cannot fire in the save.
   */
  static void refuseUncheckedSnapshotWriters(Connection c, JournalTables t) throws SQLException {
    List<String> found = new ArrayList<>();
    List<String> remedies = new ArrayList<>();
    collectCarried(
        c,
        t,
        "mesh_journal_snapshot",
        type -> onWrite(type) || (type & TRIGGER_DELETE) != 0,
        found,
        remedies);
    refuseCarried(
        found,
        remedies,
        "run as a snapshot is saved, it may store another row than the one saved, so the save"
            + " would be acknowledged and the next start find another snapshot",
        "save again");
  }

  /**
   * Refuses, where {@code found} names any, the triggers and rules it names, saying what they put
   * at {@code risk}, the statements that take them off ({@code remedies}) and what to do {@code
   * then}.
   */
  private static void refuseCarried(
      List<String> found, List<String> remedies, String risk, String then) throws SQLException {
    if (!found.isEmpty()) {
      throw new SQLException(
          "table "
              + String.join(", table ", found)
              + ", which the journal does not make: "
              + risk
              + ". Drop it or disable it ("
              + String.join("; ", remedies)
              + "), then "
              + then,
          OBJECT_NOT_IN_PREREQUISITE_STATE);
    }
  }

  /**
   * Adds to {@code found} each rule on table {@code table} and each trigger firing in this session
   * whose {@code pg_trigger.tgtype} {@code refused} takes, in words, and to {@code remedies} the
   * statement that takes it off.
   */
  private static void collectCarried(
      Connection c,
      JournalTables t,
      String table,
      java.util.function.IntPredicate refused,
      List<String> found,
      List<String> remedies)
      throws SQLException {
    for (Carried on : carried(c, t, table)) {
      Integer type = on.type();
      if (type == null || refused.test(type)) {
        found.add(table + " carries " + on);
        remedies.add(on.remedy(qualified(c, t, table)));
      }
    }
  }

  /**
   * A privilege the journal uses on one of its tables: on the columns {@code columns} it names (a
   * privilege a column may carry: {@code SELECT}, {@code INSERT}, {@code UPDATE}), or on the table
   * as a whole where it names none ({@code DELETE}).
   */
  record Privilege(String name, List<String> columns) {
    Privilege {
      columns = List.copyOf(columns);
    }

    /** {@code name} on the columns {@code columns} (on the table where there are none). */
    static Privilege on(String name, String... columns) {
      return new Privilege(name, List.of(columns));
    }
  }

  /**
   * Refuses a session whose role lacks any of {@code privileges} on table {@code table} of its
   * schema, naming them, the table, what they are needed for ({@code use}) and the grant that gives
   * them, before anything is written: the statement they are missing from failed only with the
   * server's "permission denied for table", naming neither the privilege nor the grant, and (for a
   * snapshot save, whose insert passes and whose delete of the older rows fails) at every save. A
   * privilege is held where it is granted on the table, or on each of the columns the journal uses
   * it on (those the table has): a DBA granting column by column gives the journal's statements,
   * which name their columns, all they use, and no more need be granted (a role allowed to update
   * the epoch alone of the owner table raises it as well as one allowed to update every column).
   */
  static void refuseMissingPrivileges(
      Connection c, JournalTables t, String table, String use, Privilege... privileges)
      throws SQLException {
    List<String> names = new ArrayList<>();
    List<String> columns = new ArrayList<>();
    for (Privilege p : privileges) {
      if (p.columns().isEmpty()) {
        names.add(p.name());
        columns.add(null);
      }
      for (String column : p.columns()) {
        names.add(p.name());
        columns.add(column);
      }
    }
    List<String> missing = new ArrayList<>();
    String role = null;
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT u.p, pg_catalog.bool_and(CASE"
                + " WHEN pg_catalog.has_table_privilege(t.oid, u.p) THEN true"
                + " WHEN u.col IS NULL THEN false"
                // A column the table lacks (an earlier version's owner table) is used by no
                // statement run on it.
                + " WHEN a.attnum IS NULL THEN true"
                + " ELSE pg_catalog.has_column_privilege(t.oid, a.attnum, u.p) END),"
                + " pg_catalog.quote_ident(pg_catalog.current_user()::pg_catalog.text)"
                + " FROM (SELECT "
                + t.oid("?::pg_catalog.text")
                + ") AS t(oid)"
                + " CROSS JOIN ROWS FROM (pg_catalog.unnest(?::pg_catalog.text[]),"
                + " pg_catalog.unnest(?::pg_catalog.text[])) WITH ORDINALITY AS u(p, col, i)"
                + " LEFT JOIN pg_catalog.pg_attribute a"
                + " ON a.attrelid OPERATOR(pg_catalog.=) t.oid"
                + " AND a.attname OPERATOR(pg_catalog.=) u.col AND NOT a.attisdropped"
                + " GROUP BY u.p ORDER BY pg_catalog.min(u.i)")) {
      ps.setString(1, table);
      ps.setArray(2, c.createArrayOf("text", names.toArray()));
      ps.setArray(3, c.createArrayOf("text", columns.toArray()));
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          role = rs.getString(3);
          if (!rs.getBoolean(2)) {
            missing.add(rs.getString(1));
          }
        }
      }
    }
    if (!missing.isEmpty()) {
      String named = String.join(", ", missing);
      throw new SQLException(
          "role "
              + role
              + " lacks "
              + named
              + " on table "
              + table
              + ", which "
              + use
              + ": GRANT "
              + named
              + " ON "
              + qualified(c, t, table)
              + " TO "
              + role,
          INSUFFICIENT_PRIVILEGE);
    }
  }

  /**
   * Refuses a session whose journal tables compare a column under a nondeterministic collation
   * ({@code CREATE COLLATION ... deterministic = false}, put on by a DBA's {@code ALTER TABLE ...
   * COLLATE}): under one, text that differs (in case, in accents) compares equal, and the tables'
   * keys with it. Journal names are steward identities that differ in case alone ({@code did:key}
   * is base58), so one steward's opening raised another's owner row (fencing it) and read its
   * records as its own, and its first record collided with the other's key. A unique index a DBA
   * made with such a collation ({@code CREATE UNIQUE INDEX ... (journal COLLATE ci)}) does the same
   * to the raise of the epoch. Asked before anything is raised or read; the journal makes its
   * columns with the database's default collation, which is deterministic.
   */
  static void refuseNondeterministicCollations(Connection c, JournalTables t) throws SQLException {
    List<String> found =
        findings(
            c,
            "SELECT t.relname, a.attname, l.collname,"
                + " pg_catalog.format('%I.%I', n.nspname, t.relname)"
                + " FROM pg_catalog.pg_attribute a"
                + " JOIN pg_catalog.pg_class t ON t.oid OPERATOR(pg_catalog.=) a.attrelid"
                + " JOIN pg_catalog.pg_namespace n"
                + " ON n.oid OPERATOR(pg_catalog.=) t.relnamespace"
                + " JOIN pg_catalog.pg_collation l"
                + " ON l.oid OPERATOR(pg_catalog.=) a.attcollation"
                + " WHERE a.attrelid OPERATOR(pg_catalog.=) ANY ("
                + journalTableOids(t)
                + ") AND a.attnum OPERATOR(pg_catalog.>) 0 AND NOT a.attisdropped"
                + " AND NOT l.collisdeterministic"
                + " ORDER BY 1, 2",
            rs ->
                columnFinding(
                    rs,
                    "collation " + quoted(rs.getString(3)) + ", which is nondeterministic",
                    rs.getString(4),
                    "text COLLATE pg_catalog.\"default\""));
    found.addAll(
        findings(
            c,
            // A unique index whose key compares under one, a column's own aside (the column is
            // named above, and putting it back remakes them): the raise's ON CONFLICT (journal)
            // takes every unique index on the column for an arbiter, whatever its collation.
            "SELECT x.relname, t.relname, l.collname,"
                + " pg_catalog.format('%I.%I', n.nspname, x.relname)"
                + " FROM pg_catalog.pg_index i"
                + " JOIN pg_catalog.pg_class t ON t.oid OPERATOR(pg_catalog.=) i.indrelid"
                + " JOIN pg_catalog.pg_class x ON x.oid OPERATOR(pg_catalog.=) i.indexrelid"
                + " JOIN pg_catalog.pg_namespace n"
                + " ON n.oid OPERATOR(pg_catalog.=) x.relnamespace"
                + " CROSS JOIN LATERAL ROWS FROM"
                + " (pg_catalog.unnest(i.indkey::pg_catalog.int2[]),"
                + " pg_catalog.unnest(i.indcollation::pg_catalog.oid[])) AS k(attnum, coll)"
                + " JOIN pg_catalog.pg_collation l ON l.oid OPERATOR(pg_catalog.=) k.coll"
                + " LEFT JOIN pg_catalog.pg_attribute a"
                + " ON a.attrelid OPERATOR(pg_catalog.=) i.indrelid"
                + " AND a.attnum OPERATOR(pg_catalog.=) k.attnum"
                + " WHERE i.indrelid OPERATOR(pg_catalog.=) ANY ("
                + journalTableOids(t)
                + ") AND (i.indisunique OR i.indisexclusion) AND NOT l.collisdeterministic"
                + " AND (a.attcollation IS NULL"
                + " OR a.attcollation OPERATOR(pg_catalog.<>) k.coll)"
                + " ORDER BY 2, 1",
            rs ->
                "unique index "
                    + quoted(rs.getString(1))
                    + " on table "
                    + rs.getString(2)
                    + " compares with collation "
                    + quoted(rs.getString(3))
                    + ", which is nondeterministic (fix: DROP INDEX "
                    + rs.getString(4)
                    + ", or the constraint it serves)"));
    refuseFound(
        found,
        "Under it two journals whose names differ only in case or accents are one: a steward would"
            + " raise the other's epoch and read its records as its own. Put the column back to the"
            + " database's collation (or drop the index), then start the steward");
  }

  /** How an opening check words one row its catalog query found wrong. */
  @FunctionalInterface
  private interface Finding {
    String words(ResultSet row) throws SQLException;
  }

  /**
   * Runs an opening check's catalog {@code query}, each row of which is something wrong with the
   * schema, and words each: what {@link #refuseFound} refuses in one message, every finding named
   * (a DBA fixing one at a time would otherwise restart once per finding).
   */
  private static List<String> findings(Connection c, String query, Finding finding)
      throws SQLException {
    List<String> found = new ArrayList<>();
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(query)) {
      while (rs.next()) {
        found.add(finding.words(rs));
      }
    }
    return found;
  }

  /**
   * A finding of a column of the journal's tables, its row's first two columns the table and the
   * column: what it {@code has}, and the {@code ALTER COLUMN ... TYPE} to {@code type} that puts it
   * back, naming the table as {@code qualified} (schema and table, each quoted where it must be).
   */
  private static String columnFinding(ResultSet row, String has, String qualified, String type)
      throws SQLException {
    return "column "
        + row.getString(2)
        + " of table "
        + row.getString(1)
        + " has "
        + has
        + " (fix: ALTER TABLE "
        + qualified
        + " ALTER COLUMN "
        + quoted(row.getString(2))
        + " TYPE "
        + type
        + ")";
  }

  /**
   * Refuses the opening with what an opening check {@code found} wrong with the schema, each
   * finding with its fix, followed by why it matters and what to do ({@code consequence}); nothing
   * found, nothing refused.
   */
  private static void refuseFound(List<String> found, String consequence) throws SQLException {
    if (!found.isEmpty()) {
      throw new SQLException(
          String.join("; ", found) + ". " + consequence, OBJECT_NOT_IN_PREREQUISITE_STATE);
    }
  }

  /**
   * Refuses a record table whose {@code seq} or {@code line} no longer has the type the journal
   * created it with, which its batch insert refuses (SPEC.md 60.7, "Tables"): a DBA's {@code ALTER
   * COLUMN line TYPE text} left every record reading back (the driver hands a text's bytes as they
   * are), so the steward opened, and then failed its journal at its first record, after every
   * restart. Asked at opening, before the lock, as the collations are.
   */
  static void refuseRetypedColumns(Connection c, JournalTables t) throws SQLException {
    List<String> found =
        findings(
            c,
            "SELECT t.relname, a.attname,"
                + " pg_catalog.format_type(a.atttypid, a.atttypmod), w.typ::pg_catalog.text,"
                + " pg_catalog.format('%I.%I', n.nspname, t.relname)"
                + " FROM (VALUES ("
                + t.oid("'mesh_journal_record'")
                + ", 'seq', 'pg_catalog.int8'::pg_catalog.regtype), ("
                + t.oid("'mesh_journal_record'")
                + ", 'line', 'pg_catalog.bytea'::pg_catalog.regtype)) AS w(rel, col, typ)"
                + " JOIN pg_catalog.pg_attribute a ON a.attrelid OPERATOR(pg_catalog.=) w.rel"
                + " AND a.attname OPERATOR(pg_catalog.=) w.col::pg_catalog.name"
                + " JOIN pg_catalog.pg_class t ON t.oid OPERATOR(pg_catalog.=) a.attrelid"
                + " JOIN pg_catalog.pg_namespace n"
                + " ON n.oid OPERATOR(pg_catalog.=) t.relnamespace"
                + " WHERE NOT a.attisdropped"
                + " AND a.atttypid OPERATOR(pg_catalog.<>) w.typ::pg_catalog.oid"
                + " ORDER BY 1, 2",
            rs ->
                columnFinding(
                    rs,
                    "type "
                        + rs.getString(3)
                        + ", not the "
                        + rs.getString(4)
                        + " the journal created it with",
                    rs.getString(5),
                    rs.getString(4) + " USING what undoes its conversion"));
    refuseFound(
        found,
        "The table was altered by hand, and the journal would store its records converted, in a"
            + " form that does not read back as them. Put the column back, then start the steward");
  }

  /**
   * Table {@code table} of {@code t}'s schema as a statement an operator copies names it: with its
   * schema, each part quoted where it must be (by the server's rules), so that it reaches this
   * table whatever the search path of the session it is run in ({@code table} alone where the
   * schema has no such table).
   */
  static String qualified(Connection c, JournalTables t, String table) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT pg_catalog.format('%I.%I', n.nspname, r.relname) FROM pg_catalog.pg_class r"
                + " JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) r.relnamespace"
                + " WHERE r.oid OPERATOR(pg_catalog.=) "
                + t.oid("?::pg_catalog.text"))) {
      ps.setString(1, table);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? rs.getString(1) : table;
      }
    }
  }

  /** The oids of the journal's three tables in {@code t}'s schema (null for one not there). */
  private static String journalTableOids(JournalTables t) {
    return "ARRAY["
        + t.oid("'mesh_journal_owner'")
        + ", "
        + t.oid("'mesh_journal_record'")
        + ", "
        + t.oid("'mesh_journal_snapshot'")
        + "]::pg_catalog.oid[]";
  }

  /** {@code pg_trigger.tgtype} bits: fired before the row is written. */
  private static final int TRIGGER_BEFORE = 1 << 1;

  /** {@code pg_trigger.tgtype} bits: fired on insert. */
  private static final int TRIGGER_INSERT = 1 << 2;

  /** {@code pg_trigger.tgtype} bits: fired on delete. */
  private static final int TRIGGER_DELETE = 1 << 3;

  /** {@code pg_trigger.tgtype} bits: fired on update. */
  private static final int TRIGGER_UPDATE = 1 << 4;

  /** {@code pg_trigger.tgtype} bits: fired instead of the statement (on a view). */
  private static final int TRIGGER_INSTEAD = 1 << 6;

  /** Whether a trigger whose {@code pg_trigger.tgtype} is {@code type} runs on insert or update. */
  private static boolean onWrite(int type) {
    return (type & (TRIGGER_INSERT | TRIGGER_UPDATE)) != 0;
  }

  /** SQLSTATE {@code object_not_in_prerequisite_state}. */
  private static final String OBJECT_NOT_IN_PREREQUISITE_STATE = "55000";

  /**
   * A trigger that fires in the journal's session ({@code type} its {@code pg_trigger.tgtype}) or a
   * rule ({@code type} null) on one of the journal's tables; the journal makes neither.
   */
  record Carried(String name, @Nullable Integer type) {
    @Override
    public String toString() {
      return (type == null ? "rule " : "trigger ") + name;
    }

    /**
     * The statement that takes it off table {@code table} (as {@link JournalSchema#qualified} names
     * it), as an operator runs it: a trigger disabled (kept for the DBA to look at), a rule dropped
     * (a disabled rule still refuses the raise's {@code INSERT ... ON CONFLICT}). The name is
     * quoted, so a trigger named with capitals, a space or a keyword is the one the statement
     * reaches.
     */
    String remedy(String table) {
      return type == null
          ? "DROP RULE " + quoted(name) + " ON " + table
          : "ALTER TABLE " + table + " DISABLE TRIGGER " + quoted(name);
    }
  }

  /**
   * The triggers that the server fires in this session and the rules on table {@code table} of the
   * schema of {@code t} that the journal did not create (none of its own are internal), by kind and
   * name. The comparisons name pg_catalog's operators, and the words are made here rather than by
   * the server's {@code ||}: an {@code oid = regclass} or a {@code text || name} in the journal's
   * schema would be chosen over pg_catalog's, hiding the table's triggers or renaming them.
   */
  private static List<Carried> carried(Connection c, JournalTables t, String table)
      throws SQLException {
    List<Carried> out = new ArrayList<>();
    try (PreparedStatement ps =
        c.prepareStatement(
            // Rules first, then triggers, each by name (as their words sort).
            "SELECT 1, tgname, tgtype, tgenabled::pg_catalog.text,"
                + " pg_catalog.current_setting('session_replication_role')"
                + " FROM pg_catalog.pg_trigger"
                + " WHERE tgrelid OPERATOR(pg_catalog.=) "
                + t.oid("?")
                + " AND NOT tgisinternal"
                + " UNION ALL SELECT 0, rulename, NULL, NULL, NULL FROM pg_catalog.pg_rewrite"
                + " WHERE ev_class OPERATOR(pg_catalog.=) "
                + t.oid("?")
                + " ORDER BY 1, 2")) {
      ps.setString(1, table);
      ps.setString(2, table);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          int type = rs.getInt(3);
          Integer kind = rs.wasNull() ? null : type;
          // A rule is named whatever its state: the server refuses the raise's INSERT ... ON
          // CONFLICT on a table with an UPDATE rule, enabled or not.
          if (kind == null || fires(rs.getString(4), rs.getString(5))) {
            out.add(new Carried(rs.getString(2), kind));
          }
        }
      }
    }
    return out;
  }

  /**
   * Whether a trigger whose {@code pg_trigger.tgenabled} is {@code enabled} runs in a session whose
   * {@code session_replication_role} is {@code role}, as the server decides it: {@code A} always,
   * {@code O} unless the session is a replica's, {@code R} only there, {@code D} never. One that
   * does not run there cannot change what the journal writes (enabled for a logical replication
   * subscriber only, or disabled by the DBA), and refusing it refused a set-up that does no harm.
   */
  private static boolean fires(String enabled, String role) {
    boolean replica = "replica".equals(role);
    return switch (enabled) {
      case "A" -> true;
      case "O" -> !replica;
      case "R" -> replica;
      default -> false;
    };
  }

  /**
   * The statements that drop each rule on table {@code table} of {@code t}'s schema, as an operator
   * runs them: the rule's name quoted by the server ({@code quote_ident}), whose rules (its
   * keywords, a name with capitals, a space or a quote) are the ones that count, and the table in
   * full ({@link #qualified}).
   */
  static List<String> dropRules(Connection c, JournalTables t, String table) throws SQLException {
    String on = qualified(c, t, table);
    List<String> out = new ArrayList<>();
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT pg_catalog.quote_ident(rulename::pg_catalog.text) FROM pg_catalog.pg_rewrite"
                + " WHERE ev_class OPERATOR(pg_catalog.=) "
                + t.oid("?::pg_catalog.text")
                + " ORDER BY rulename")) {
      ps.setString(1, table);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.add("DROP RULE " + rs.getString(1) + " ON " + on);
        }
      }
    }
    return out;
  }

  /** The first column of {@code sql}'s rows, as text, in order. */
  private static List<String> column(Connection c, String sql) throws SQLException {
    List<String> out = new ArrayList<>();
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      while (rs.next()) {
        out.add(rs.getString(1));
      }
    }
    return out;
  }

  /** The names of the journals holding records, in order. */
  static List<String> names(Connection c, JournalTables t) throws SQLException {
    if (!exists(c, t, "mesh_journal_record")) {
      return List.of();
    }
    return column(c, "SELECT DISTINCT journal FROM " + t.record() + " ORDER BY journal");
  }

  /** Whether table {@code table} is in {@code t}'s schema. */
  private static boolean exists(Connection c, JournalTables t, String table) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement("SELECT " + t.oid("?::pg_catalog.text") + " IS NOT NULL")) {
      ps.setString(1, table);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getBoolean(1);
      }
    }
  }

  /**
   * A 64-bit advisory lock key: the first 8 bytes of BLAKE3 of {@code text}. Two journal names
   * sharing a key would only make one wait for the other, never share a writer.
   */
  static long lockKey(String text) {
    return ByteBuffer.wrap(ContentId.ofBytes(text.getBytes(StandardCharsets.UTF_8)).bytes())
        .getLong();
  }
}
