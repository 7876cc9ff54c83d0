package org.meshjava.journal.postgres;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLWarning;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.meshjava.core.ContentId;
import org.meshjava.jcp.GrantChain;
import org.meshjava.journal.Journal;
import org.meshjava.journal.JournalEntry;
import org.meshjava.journal.JournalException;
import org.meshjava.journal.JournalPosition;
import org.meshjava.journal.JournalRecord;
import org.meshjava.journal.internal.FailureWords;
import org.meshjava.journal.internal.GroupCommit;
import org.meshjava.journal.internal.JournalChain;
import org.meshjava.journal.internal.JournalFile;
import org.meshjava.journal.internal.LockHolder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The decision journal (§2.2) kept in a PostgreSQL database, so that a steward's spend, spent
 * presentations and receipt chain outlive the machine it runs on. Several stewards may share one
 * database: each journal is named, by its steward's identity.
 *
 * <p><b>Records.</b> One row per record, {@code (journal, seq, line)}, where {@code line} is the
 * record's encoding byte for byte as the file journal writes it ({@link JournalChain}); opening
 * streams every row in order and checks the chain exactly as the file journal checks its file,
 * keeping none of them, and a {@link #read} streams them from the database again, so a journal's
 * length costs time at opening but no memory (SPEC.md section 60.7 has the schema).
 *
 * <p><b>One writer, enforced by the database.</b> Opening takes a session-level advisory lock keyed
 * by the journal's schema and name on a connection the journal keeps for its lifetime, and refuses
 * with {@link JournalException.Reason#LOCKED} where another session holds it. The database releases
 * that lock when the session ends, however it ends, so a crashed steward leaves nothing to clean
 * up. Opening then raises the journal's epoch (a row of {@code mesh_journal_owner}) and every write
 * carries the epoch it opened with in the same statement that inserts its rows: a write whose epoch
 * is no longer current inserts nothing and fails the journal with {@link
 * JournalException.Reason#FENCED}. The journal never reconnects: a lost session fails it at its
 * next write or heartbeat, and it takes no more appends, so a steward that was paused while a
 * successor took over cannot interleave a single record with it.
 *
 * <p><b>Lease.</b> A paused steward's connection stays open, and so would its lock. The session is
 * therefore opened with {@code idle_session_timeout} set to the {@linkplain
 * PostgresLocation#lease() lease}, and a heartbeat speaks to the database at a third of it
 * (checking the epoch as it goes): a live steward keeps its session; one that stops speaking
 * (paused, cut off) loses it after the lease, and with it the lock.
 *
 * <p><b>Group commit.</b> As for the file journal, through the same {@link GroupCommit}: {@link
 * #enqueue} fixes a record's place under a short lock; {@link Pending#await()} returns once it is
 * committed. One waiter at a time leads and inserts every queued record in one statement, in a
 * transaction whose {@code COMMIT} is sent only once the statement answered ({@code
 * synchronous_commit} at least {@code on}, so committed means in the write-ahead log on disk); the
 * others wait and are woken when it commits. A failed or fenced write fails the journal: every
 * append not yet committed, and every later one, throws. A batch that fails before its {@code
 * COMMIT} is sent is rolled back by the server, even one still running there when the journal gave
 * up; only a {@code COMMIT} whose answer is lost leaves records that were refused but may be found
 * on restart (SPEC.md section 60.7, "Faults").
 *
 * <p>Thread-safe.
 */
public final class PostgresJournal implements Journal {
  private static final Logger LOG = LoggerFactory.getLogger(PostgresJournal.class);

  private final PostgresLocation location;
  private final String name;
  private final Connection connection;

  /** The journal's tables, named in full in every statement (see JournalTables). */
  private final JournalTables tables;

  private final long epoch;

  /** The key of the journal's advisory lock, held by {@link #connection} (see JournalSchema). */
  private final long lockKey;

  /**
   * The pid of the server process that took the journal's lock: every heartbeat checks that it is
   * the one answering (see {@link #pooled}).
   */
  private final long backend;

  private final ScheduledExecutorService heartbeat;
  private final ScheduledFuture<?> beating;

  private final GroupCommit<JournalChain.Encoded> commits;

  /** The committed end: every record committed, and the hash of the last one's line. */
  private volatile JournalPosition durable;

  /** The session's settings as opening left them, set again by each batch (see SessionSettings). */
  private final SessionSettings settings;

  /** Guards the connection: the sync leader and the heartbeat take turns on it. */
  private final Object connectionLock = new Object();

  private PostgresJournal(
      PostgresLocation location,
      String name,
      PostgresLocation.Session session,
      Held held,
      long epoch,
      JournalChain chain,
      SessionSettings settings) {
    this.location = location;
    this.settings = settings;
    this.name = name;
    this.connection = session.connection();
    this.tables = session.tables();
    this.lockKey = held.key();
    this.backend = held.backend();
    this.epoch = epoch;
    this.durable = chain.recoveredEnd();
    this.commits =
        new GroupCommit<>(
            name + " at " + location,
            durable.count() - 1L,
            chain::advance,
            JournalChain.Encoded::record,
            this::insertBatch);
    this.heartbeat =
        Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().daemon().name("mesh-journal-heartbeat " + name).factory());
    long every = heartbeatEvery().toMillis();
    this.beating =
        heartbeat.scheduleWithFixedDelay(this::beat, every, every, TimeUnit.MILLISECONDS);
  }

  /**
   * Opens journal {@code name} (a steward's identity) at {@code location}, creating the tables when
   * absent, takes its lock, raises its epoch and recovers its records.
   *
   * @throws JournalException {@code LOCKED} if another steward holds it, {@code CORRUPT} naming the
   *     first bad record, or when its epoch cannot be raised (already the largest {@code bigint}),
   *     {@code MISPLACED} if its owner row is in another schema than the session's, or records that
   *     it was written in another database or cluster (its rows copied here: see {@link #adopt}),
   *     {@code UNLOCKABLE} if its statements are seen answered by another server process than the
   *     one that took its lock (a pooling proxy in transaction mode), or if the server session its
   *     new connection reached holds its lock already (a proxy handing one server session to
   *     several clients), {@code IO} if the database cannot be reached or refuses (a read-only
   *     session or standby among the refusals)
   */
  public static PostgresJournal open(PostgresLocation location, String name)
      throws JournalException {
    return open(location, name, () -> {});
  }

  /**
   * Opens journal {@code name} at {@code location} as {@link #open(PostgresLocation, String)} does,
   * taking it over where its owner row records another database or cluster: the rows were copied
   * here (a dump restored, a cluster upgraded into a new one, a database made from a template),
   * which opening refuses {@code MISPLACED} because the original may still be served, and a journal
   * served in two places spends every budget twice. The owner row then records this database. Only
   * for a copy whose original will never be served again (it was lost, or the copy replaces it);
   * the caller vouches for that, nothing here can see the original.
   *
   * @throws JournalException as {@link #open(PostgresLocation, String)}, never {@code MISPLACED}
   *     for a copy
   */
  public static PostgresJournal adopt(PostgresLocation location, String name)
      throws JournalException {
    return open(location, name, () -> {}, c -> c, true);
  }

  /**
   * {@link #open(PostgresLocation, String)}, running {@code afterEachRecord} after checking each
   * record it reads: lets a test make the reading as slow as a long journal on a loaded machine.
   */
  static PostgresJournal open(PostgresLocation location, String name, Runnable afterEachRecord)
      throws JournalException {
    return open(location, name, afterEachRecord, c -> c);
  }

  /** Stands in for the journal's session: lets a test see, and end, each statement on it. */
  @FunctionalInterface
  interface Sessions {
    /** The connection the journal uses in place of {@code pinned}, a new session's. */
    Connection wrap(Connection pinned) throws SQLException;
  }

  /**
   * {@link #open(PostgresLocation, String, Runnable)} on the connection {@code sessions} makes of
   * the session's: lets a test see, and end, each statement of the opening and of the writes after
   * it.
   */
  static PostgresJournal open(
      PostgresLocation location, String name, Runnable afterEachRecord, Sessions sessions)
      throws JournalException {
    return open(location, name, afterEachRecord, sessions, false);
  }

  private static PostgresJournal open(
      PostgresLocation location,
      String name,
      Runnable afterEachRecord,
      Sessions sessions,
      boolean adopt)
      throws JournalException {
    checkName(name);
    Connection c = null;
    JournalTables t = null;
    try {
      PostgresLocation.Session pinned = location.session();
      c = pinned.connection();
      c = sessions.wrap(c);
      t = pinned.tables();
      PostgresLocation.Session session = new PostgresLocation.Session(c, t);
      c.setAutoCommit(true);
      try (Statement s = c.createStatement()) {
        // A paused steward's session ends after the lease, releasing the lock (class comment).
        s.execute("SET idle_session_timeout = " + location.lease().toMillis());
        s.execute("SET idle_in_transaction_session_timeout = " + location.lease().toMillis());
        // A COMMIT answered with a warning is refused (insertBatch), which needs the warning sent:
        // a server or role whose client_min_messages is above warning would keep it back.
        s.execute("SET client_min_messages = warning");
        // Committed must mean durable: never acknowledge a record the server may still lose. Off
        // acknowledges before the primary's disk has it; local and remote_write, before the
        // synchronous standbys a failover would promote have it on theirs (a role's setting
        // chosen for an application's latency).
        try (ResultSet rs = s.executeQuery("SHOW synchronous_commit")) {
          rs.next();
          if (!DURABLE_COMMITS.contains(rs.getString(1))) {
            s.execute("SET synchronous_commit = on");
          }
        }
      }
      SessionSettings settings = SessionSettings.of(c);
      // Before anything is created or raised: a journal whose records are in another schema is
      // refused, not started afresh here.
      JournalSchema.checkHome(c, t, name, location);
      JournalSchema.refuseReadOnly(c);
      boolean homed = JournalSchema.create(c, t);
      JournalSchema.refuseUncheckedWriters(c, t);
      JournalSchema.refuseNondeterministicCollations(c, t);
      JournalSchema.refuseRetypedColumns(c, t);
      Held held = lock(c, t, name, location);
      // At once, before anything is raised: under a pooling proxy that hands each transaction to
      // whichever server connection is free, the lock stays with a connection the steward no
      // longer speaks on.
      checkOneSession(c, held, name, location);
      // Before anything is raised (and after the lock, so that a steward running is named
      // LOCKED as ever): a role that opens but may not write had every steward start
      // and then fail its journal at the first record, in the server's words alone.
      JournalSchema.refuseMissingPrivileges(
          c,
          t,
          "mesh_journal_owner",
          "a steward needs (it raises its journal's epoch and holds the row while it writes)",
          JournalSchema.Privilege.on("SELECT", OWNER_COLUMNS),
          JournalSchema.Privilege.on("INSERT", OWNER_COLUMNS),
          // The raise sets these, and no other; FOR SHARE asks UPDATE on one column.
          JournalSchema.Privilege.on("UPDATE", "epoch", "cluster_id", "database_oid"));
      JournalSchema.refuseMissingPrivileges(
          c,
          t,
          "mesh_journal_record",
          "a steward needs (it reads and writes records)",
          JournalSchema.Privilege.on("SELECT", "journal", "seq", "line"),
          JournalSchema.Privilege.on("INSERT", "journal", "seq", "line"));
      checkEpochCanRise(c, t, name, location);
      JournalSchema.OwnerEpoch raised;
      if (homed) {
        JournalSchema.Home here = JournalSchema.here(c);
        if (!adopt) {
          checkNotCopied(c, t, name, location, here);
        }
        raised = JournalSchema.raiseEpoch(c, t, name, here, adopt);
      } else {
        raised = JournalSchema.raiseEpoch(c, t, name);
      }
      Long epoch = raised.epoch();
      if (epoch == null) {
        // Nulled after the check above (the lock keeps stewards out, not a DBA): NULL + 1 is
        // NULL, which the driver read as epoch 0, and the journal opened at an epoch no steward
        // had, its fence comparing with 0.
        throw editedEpoch(name, location, "NULL", UNRAISABLE);
      }
      // Checked as it streams, as the file journal's read checks its file; no record is kept, and
      // a grant chain is forgotten once a decision past its expiry is read (every record is read,
      // in order), so opening takes memory for the chains still presentable, not for the history:
      // a caller that takes a grant per call leaves a chain per call behind.
      JournalChain.Reader checked = JournalChain.reader(JournalPosition.GENESIS, new HashMap<>());
      String where = name + " at " + location;
      // The heartbeat starts once the journal is open: until then the read speaks as often, so that
      // checking the records does not outlast the lease the session is idle for.
      JournalSchema.readLines(
          c,
          t,
          name,
          heartbeatEvery(location.lease()),
          (seq, line) -> {
            checked.takeApplied(line, where);
            afterEachRecord.run();
          });
      JournalChain chain = JournalChain.resume(checked);
      // Again after the read's transaction: a proxy may have kept the session until then.
      checkOneSession(c, held, name, location);
      LOG.info(
          "journal {} at {}: {} records, epoch {}",
          name,
          location,
          chain.recoveredEnd().count(),
          epoch);
      return new PostgresJournal(location, name, session, held, epoch, chain, settings);
    } catch (SQLException e) {
      String why = openFailed(c, t, location, e);
      LockHolder.closeQuietly(c);
      throw new JournalException(
          JournalException.Reason.IO,
          "cannot open journal " + name + " at " + location + ": " + why,
          e);
    } catch (JournalException | RuntimeException e) {
      LockHolder.closeQuietly(c);
      throw e;
    }
  }

  /**
   * Why an opening failed with {@code e} on {@code c}: the server's words, or, for a statement
   * refused at the journal's {@code lock_timeout} (the raise of the epoch or the read of the
   * records behind a DBA's lock), the sessions holding a lock on the journal's tables, asked on
   * {@code c} once its transaction is rolled back.
   */
  private static String openFailed(
      @Nullable Connection c,
      @Nullable JournalTables t,
      PostgresLocation location,
      SQLException e) {
    if (c == null || t == null || !JournalSchema.lockTimedOut(e)) {
      return FailureWords.of(e);
    }
    try {
      if (!c.getAutoCommit()) {
        c.rollback();
      }
      // The raise of the epoch writes the owner row; the read of the records only reads.
      return JournalSchema.lockTimedOut(
          c,
          t,
          location.lockTimeout(),
          JournalSchema.Wait.write("mesh_journal_owner"),
          JournalSchema.Wait.read("mesh_journal_record"));
    } catch (SQLException notKnown) {
      e.addSuppressed(notKnown);
      return FailureWords.of(e);
    }
  }

  /** The columns of {@code mesh_journal_owner} the journal reads and writes. */
  private static final String[] OWNER_COLUMNS = {"journal", "epoch", "cluster_id", "database_oid"};

  /**
   * The {@code synchronous_commit} values (as {@code SHOW} names them) a commit is kept under: on
   * the primary's disk and, where the server names synchronous standbys, on theirs. Any other is
   * raised to {@code on} for the journal's session.
   */
  private static final java.util.Set<String> DURABLE_COMMITS =
      java.util.Set.of("on", "remote_apply");

  /**
   * Refuses a journal whose owner row records another database or cluster than {@code here}: its
   * rows were copied into this one, and the original may still be served (the lock is held, so no
   * other opener of this database records one in between).
   */
  private static void checkNotCopied(
      Connection c,
      JournalTables t,
      String name,
      PostgresLocation location,
      JournalSchema.Home here)
      throws SQLException, JournalException {
    Optional<JournalSchema.Home> written = JournalSchema.recorded(c, t, name);
    if (written.isPresent() && !written.get().equals(here)) {
      throw new JournalException(
          JournalException.Reason.MISPLACED,
          "cannot open journal "
              + name
              + " at "
              + location
              + ": its owner row in mesh_journal_owner was written in "
              + written.get()
              + ", and this is "
              + here
              + ". Its rows were copied here (a dump restored, a cluster upgraded into a new one,"
              + " CREATE DATABASE from a template), and the original may still be served: two"
              + " copies would each spend every budget. If the original will never be served"
              + " again, adopt this copy (mesh journal adopt, PostgresJournal.adopt)",
          null);
    }
  }

  /**
   * Refuses a journal whose epoch is already the largest a {@code bigint} holds, before raising it
   * (the lock is held, so no other opener raises it in between). No steward gets there by opening:
   * one open a nanosecond would take three centuries. So the owner row was edited, and the server
   * would answer only "bigint out of range".
   */
  private static void checkEpochCanRise(
      Connection c, JournalTables t, String name, PostgresLocation location)
      throws SQLException, JournalException {
    Optional<String> unraisable = JournalSchema.unraisableEpoch(c, t, name);
    if (unraisable.isPresent()) {
      throw editedEpoch(name, location, unraisable.get(), UNRAISABLE);
    }
    // One nulled since the look above is refused at the raise, which leaves it NULL.
    if (Long.valueOf(Long.MAX_VALUE).equals(JournalSchema.epoch(c, t, name).epoch())) {
      throw editedEpoch(
          name,
          location,
          Long.toString(Long.MAX_VALUE),
          ", the largest there is, so no steward can take the journal over; no steward raises it"
              + " that far, so the row was edited. Stop every steward of this journal, then");
    }
  }

  /** Why an owner row's epoch that is NULL or not above 0 cannot be raised. */
  private static final String UNRAISABLE =
      ", which no steward writes (epochs start at 1; the column is NOT NULL and above 0 as the"
          + " journal creates it), so the row or the column's constraints were changed. Stop"
          + " every steward of this journal, put back the constraints, then";

  /** The refusal of an owner row holding {@code epoch}, {@code why} it cannot be raised. */
  private static JournalException editedEpoch(
      String name, PostgresLocation location, String epoch, String why) {
    return new JournalException(
        JournalException.Reason.CORRUPT,
        "cannot open journal "
            + name
            + " at "
            + location
            + ": its owner row in mesh_journal_owner holds epoch "
            + epoch
            + why
            + " delete its row (the next open starts again at epoch 1, with every record)",
        null);
  }

  /**
   * The records of journal {@code name} at {@code location}, read in one snapshot and checked as
   * opening checks them, without taking its lock. Package-private: it answers with the journal
   * module's internal {@code JournalChain}; the command line reads the lines ({@link #readLines})
   * and checks them itself.
   *
   * @throws JournalException {@code CORRUPT} naming the first bad record, {@code IO}
   */
  static JournalChain read(PostgresLocation location, String name) throws JournalException {
    return JournalChain.recover(readLines(location, name));
  }

  /**
   * The stored lines of journal {@code name} at {@code location}, in order, read in one snapshot
   * without taking its lock; checked only for gaps in the sequence ({@link JournalChain#contents}
   * checks the rest).
   *
   * @throws JournalException {@code CORRUPT} for a missing record, {@code IO}
   */
  public static List<byte[]> readLines(PostgresLocation location, String name)
      throws JournalException {
    List<byte[]> lines = new ArrayList<>();
    readLines(location, name, lines::add);
    return lines;
  }

  /**
   * The names of the journals at {@code location} that hold records.
   *
   * @throws JournalException {@code IO}
   */
  public static List<String> names(PostgresLocation location) throws JournalException {
    try (PostgresLocation.Session s = location.session()) {
      return JournalSchema.names(s.connection(), s.tables());
    } catch (SQLException e) {
      throw new JournalException(
          JournalException.Reason.IO,
          "cannot list the journals at " + location + ": " + FailureWords.of(e),
          e);
    }
  }

  /** Takes stored record lines one at a time, in sequence order. */
  @FunctionalInterface
  public interface LineSink {
    /** Takes the next record's line (without a newline); throwing stops the read. */
    void accept(byte[] line) throws JournalException;
  }

  /** Hands a journal's record lines, in sequence order, to a sink: what an import writes. */
  @FunctionalInterface
  public interface LineSource {
    /** Gives every line to {@code sink}, in order. */
    void forEach(LineSink sink) throws JournalException;
  }

  /**
   * Streams the stored lines of journal {@code name} at {@code location} to {@code sink}, in order,
   * in one snapshot a page at a time, without taking its lock; checked only for gaps in the
   * sequence (the caller checks the chain, as {@code mesh journal verify} does). Memory stays
   * bounded however long the journal is.
   *
   * @throws JournalException {@code CORRUPT} for a missing record, {@code IO}, or what {@code sink}
   *     throws
   */
  public static void readLines(PostgresLocation location, String name, LineSink sink)
      throws JournalException {
    checkName(name);
    try (PostgresLocation.Session s = location.session()) {
      JournalSchema.checkHome(s.connection(), s.tables(), name, location);
      readNamingHolders(
          location,
          s,
          () ->
              JournalSchema.readLines(
                  s.connection(), s.tables(), name, (seq, line) -> sink.accept(line)));
    } catch (SQLException e) {
      throw new JournalException(
          JournalException.Reason.IO,
          "cannot read journal " + name + " at " + location + ": " + FailureWords.of(e),
          e);
    }
  }

  /** A read of {@code mesh_journal_record} on a session of its own. */
  @FunctionalInterface
  private interface RecordRead {
    void run() throws SQLException, JournalException;
  }

  /**
   * Runs {@code read} on {@code s}; refused at the journal's {@code lock_timeout} (behind a DBA's
   * lock), it is refused naming the sessions whose lock on the table conflicts with the read's
   * {@code ACCESS SHARE}: the server's words name neither the table nor its holder. An export and a
   * read from a position share it.
   */
  private static void readNamingHolders(
      PostgresLocation location, PostgresLocation.Session s, RecordRead read)
      throws SQLException, JournalException {
    try {
      read.run();
    } catch (SQLException e) {
      throw JournalSchema.holdersNamed(
          s.connection(),
          s.tables(),
          location.lockTimeout(),
          e,
          JournalSchema.Wait.read("mesh_journal_record"));
    }
  }

  /**
   * Writes {@code lines} (a whole journal's records) as journal {@code name}, as {@link
   * #importLines(PostgresLocation, String, LineSource)} does.
   *
   * @return how many records were written
   */
  public static int importLines(PostgresLocation location, String name, List<byte[]> lines)
      throws JournalException {
    return Math.toIntExact(
        importLines(
            location,
            name,
            sink -> {
              for (byte[] line : lines) {
                sink.accept(line);
              }
            }));
  }

  /**
   * Writes the lines {@code source} gives (a whole journal's records, each checked as opening
   * checks them as it arrives) as journal {@code name}, which must hold no records yet; under its
   * lock, in one transaction, a batch of rows at a time, so a journal of any length is imported in
   * bounded memory. A line that is malformed or does not chain rolls the whole import back.
   *
   * @return how many records were written
   * @throws JournalException {@code CORRUPT} if the lines do not form one chain, {@code LOCKED},
   *     {@code IO}; and {@code REPLAY_REFUSED} if the journal already holds records
   */
  public static long importLines(PostgresLocation location, String name, LineSource source)
      throws JournalException {
    try (PostgresJournal j = open(location, name)) {
      if (j.position().count() > 0) {
        throw new JournalException(
            JournalException.Reason.REPLAY_REFUSED,
            "journal "
                + name
                + " at "
                + location
                + " already holds "
                + j.position().count()
                + " records; import only into an empty journal",
            null);
      }
      return j.importInOneTransaction(source);
    }
  }

  /** The rows one statement of an import inserts. */
  private static final int IMPORT_BATCH = 1000;

  private long importInOneTransaction(LineSource source) throws JournalException {
    JournalFile.Scanner checked = JournalFile.scanner(n -> {});
    List<byte[]> batch = new ArrayList<>(IMPORT_BATCH);
    long[] written = {0};
    // Each use of the session takes its lock for that use only, never while waiting for the source:
    // the heartbeat then speaks (in this transaction) every third of the lease however long the
    // source takes to give a line, so the server does not end the session of an import whose
    // source pauses (a FIFO whose writer stalls, a slow network disk; SPEC.md 60.7, "Lease").
    // Speaking only as a line arrived left a pause of a lease between two lines fatal.
    try {
      synchronized (connectionLock) {
        connection.setAutoCommit(false);
      }
      try {
        source.forEach(
            line -> {
              checked.takeStored(line);
              batch.add(line);
              if (batch.size() == IMPORT_BATCH) {
                written[0] += insertImported(written[0], batch);
                batch.clear();
              }
            });
        if (!batch.isEmpty()) {
          written[0] += insertImported(written[0], batch);
        }
        SQLWarning warned;
        synchronized (connectionLock) {
          warned = commit();
        }
        if (warned != null) {
          throw new JournalException(
              JournalException.Reason.FAILED,
              "import into "
                  + describe()
                  + " "
                  + committedWithWarning(warned)
                  + ": its "
                  + written[0]
                  + " records are in this server's table but may be missing on a standby. Find"
                  + " why the commit was not confirmed; if a steward is to run on a standby, check"
                  + " the journal there (mesh journal verify) before it starts",
              warned);
        }
        return written[0];
      } catch (JournalException | RuntimeException e) {
        synchronized (connectionLock) {
          // A session the server ended has rolled back already, and e says why it ended.
          if (!connection.isClosed()) {
            connection.rollback();
          }
        }
        throw e;
      } finally {
        synchronized (connectionLock) {
          if (!connection.isClosed()) {
            connection.setAutoCommit(true);
          }
        }
      }
    } catch (SQLException e) {
      throw importFailed(e);
    }
  }

  /**
   * An import's statement that failed: named by what failed the journal when the heartbeat did (the
   * session lost, or the epoch raised by another), which closed the session under the import and
   * says more than the driver's "connection has been closed".
   */
  private JournalException importFailed(SQLException e) {
    JournalException failed = commits.failure();
    SQLException named = e;
    if (failed == null) {
      // An insert behind a DBA's lock: name the table and its holder, as a batch's refusal does.
      // The import fails whole, so its transaction's rollback here loses nothing.
      synchronized (connectionLock) {
        named =
            JournalSchema.holdersNamed(
                connection,
                tables,
                location.lockTimeout(),
                e,
                JournalSchema.Wait.write("mesh_journal_record"));
      }
    }
    return new JournalException(
        failed != null ? failed.reason() : JournalException.Reason.IO,
        "import into "
            + describe()
            + ": "
            + (failed != null ? failed.getMessage() : FailureWords.of(named)),
        failed != null ? failed : named);
  }

  private int insertImported(long first, List<byte[]> lines) throws JournalException {
    synchronized (connectionLock) {
      try {
        int n = insert(first, lines);
        if (n != lines.size()) {
          throw shortInsert(
              first,
              n,
              lines.size(),
              "journal " + describe() + " was taken over by another steward during the import");
        }
        return n;
      } catch (SQLException e) {
        throw importFailed(e);
      }
    }
  }

  private static void checkName(String name) {
    if (name.isBlank() || name.length() > 512) {
      throw new IllegalArgumentException("a journal's name is 1 to 512 characters: " + name);
    }
  }

  /**
   * The journal's advisory lock as taken: its key, and the pid of the server process whose session
   * holds it.
   */
  private record Held(long key, long backend) {}

  /** Takes the journal's advisory lock on {@code c}. */
  private static Held lock(Connection c, JournalTables t, String name, PostgresLocation location)
      throws SQLException, JournalException {
    long key = JournalSchema.lockKey(t, name);
    long deadline = System.nanoTime() + location.lockWait().toNanos();
    while (true) {
      JournalSchema.LockAttempt attempt = JournalSchema.tryLockAt(c, key);
      if (attempt.taken()) {
        return new Held(key, attempt.backend());
      }
      if (attempt.heldAlready()) {
        // The pid from the attempt's own statement: behind a proxy in transaction mode the next
        // statement may be answered by another process, one that holds nothing.
        throw new JournalException(
            JournalException.Reason.UNLOCKABLE,
            "cannot open journal " + name + " at " + location + ": " + shared(attempt.backend()),
            null);
      }
      if (System.nanoTime() >= deadline) {
        throw new JournalException(
            JournalException.Reason.LOCKED,
            lockedMessage(name, location, JournalSchema.lockHolder(c, key)),
            null);
      }
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new JournalException(
            JournalException.Reason.LOCKED, "interrupted while waiting for journal " + name, e);
      }
    }
  }

  /**
   * Why a new connection whose server session {@code pid} already holds the journal's lock cannot
   * hold the journal: a session the journal opens holds no lock of its own, so a proxy handed this
   * one on from another client (a pool whose one server connection every client shares, in
   * transaction mode, or in session mode without a reset query that releases locks, {@code DISCARD
   * ALL}). The lock stacks there and would be granted to every steward of the journal at once.
   */
  private static String shared(long pid) {
    return "the server session this new connection reached (process "
        + pid
        + ") already holds the journal's lock, taken before this opening, so something between"
        + " the steward and the database hands one server session to several clients: a pooling"
        + " proxy with one server connection in transaction or statement mode, or in session mode"
        + " without a reset query that releases locks (PgBouncer's server_reset_query, DISCARD"
        + " ALL). There the lock would be granted to every steward of the journal at once (SPEC.md"
        + " 60.7, \"Lease\"): connect directly, or through a pool in session mode that resets its"
        + " connections. If no steward of this journal runs, end that session with SELECT"
        + " pg_terminate_backend("
        + pid
        + ")";
  }

  /**
   * Refuses, {@code UNLOCKABLE}, a connection on which another server process answers than the one
   * that took the journal's lock ({@code held}): see {@link #pooled}.
   */
  private static void checkOneSession(
      Connection c, Held held, String name, PostgresLocation location)
      throws SQLException, JournalException {
    long answering = JournalSchema.backendPid(c);
    if (answering != held.backend()) {
      throw new JournalException(
          JournalException.Reason.UNLOCKABLE,
          "cannot open journal "
              + name
              + " at "
              + location
              + ": "
              + pooled(held.backend(), answering),
          null);
    }
  }

  /**
   * Why a connection whose statements server process {@code answering} answered, where process
   * {@code holder} took the journal's lock, cannot hold the journal. A pooling proxy in transaction
   * or statement mode (PgBouncer's {@code pool_mode=transaction}) hands each transaction to
   * whichever of its server connections is free: the lock, the idle limit that releases it and the
   * pinned path stay with one of them, so a stopped steward's lock outlives it and a running one
   * speaks on sessions that hold nothing. Seen only where two statements land on two processes; a
   * proxy that happens to answer on one looks like a direct connection.
   */
  private static String pooled(long holder, long answering) {
    return "the journal's lock was taken by server process "
        + holder
        + " and a later statement on the same connection was answered by process "
        + answering
        + ", so something between the steward and the database hands its statements to other"
        + " sessions: a pooling proxy in transaction or statement mode (PgBouncer's"
        + " pool_mode=transaction). The journal's lock and lease are its session's (SPEC.md 60.7,"
        + " \"Lease\"): connect directly, or through a pool in session mode. The lock may still"
        + " be held by process "
        + holder
        + " (the proxy's server connection); end it with SELECT pg_terminate_backend("
        + holder
        + ") if no steward runs";
  }

  /**
   * Why an open was refused LOCKED, naming the session that holds the lock where the server shows
   * it: a session can outlive its steward (a COMMIT waiting for a standby, a machine cut off within
   * its lease), and then no other steward runs although the lock is held.
   */
  private static String lockedMessage(
      String name, PostgresLocation location, Optional<JournalSchema.LockHolding> holder) {
    String held = "journal " + name + " at " + location + " is held by another steward";
    if (holder.isEmpty()) {
      return held
          + " (its database session held the journal's lock, and has just let it go:"
          + " start again)";
    }
    return held
        + " (its database session holds the journal's lock: "
        + holder.get().session()
        + "). If no other steward with this key runs, that session is a stopped one's that the"
        + " server has not ended yet: wait for it, start with lock_wait_ms in the URL, or end it"
        + " with SELECT pg_terminate_backend("
        + holder.get().pid()
        + ")";
  }

  /**
   * Reads every record into a list (see {@link Journal#recovered()}): for tools and tests. A
   * steward streams them with {@link #read} instead, so nothing is retained.
   */
  @Override
  public List<JournalRecord> recovered() {
    return Journal.readAll(this);
  }

  /** The committed end: the records committed so far and the hash of the last one's line. */
  @Override
  public JournalPosition position() {
    return durable;
  }

  /**
   * Streams the records from {@code from} to the committed end from the database, in sequence order
   * on a connection of its own (so a read never holds up a commit), checked as they come.
   */
  @Override
  public void read(JournalPosition from, Map<ContentId, GrantChain> chains, RecordSink sink)
      throws JournalException {
    JournalPosition end = durable;
    if (from.count() > end.count()
        || (from.count() == end.count() && !from.lastHash().equals(end.lastHash()))) {
      throw new JournalException(
          JournalException.Reason.POSITION_MISMATCH,
          from
              + " is not in journal "
              + describe()
              + " ("
              + end.count()
              + " records, the last hashing to "
              + end.lastHash().map(ContentId::toString).orElse("nothing")
              + ")",
          null);
    }
    JournalPosition at = from;
    if (at.count() >= end.count()) {
      return;
    }
    JournalChain.Reader reader = JournalChain.reader(at, chains);
    try (PostgresLocation.Session s = location.session()) {
      readNamingHolders(
          location,
          s,
          () ->
              JournalSchema.readLines(
                  s.connection(),
                  s.tables(),
                  name,
                  at.count(),
                  end.count(),
                  (seq, line) -> sink.accept(reader.take(line, this))));
    } catch (SQLException e) {
      throw new JournalException(
          JournalException.Reason.IO,
          "cannot read journal " + describe() + ": " + FailureWords.of(e),
          e);
    }
  }

  @Override
  public Pending enqueue(JournalEntry entry) throws JournalException {
    return commits.enqueue(entry);
  }

  /** Inserts and commits a batch of queued records: the group commit's step. */
  private void insertBatch(List<JournalChain.Encoded> batch, long seq) throws JournalException {
    long first = batch.getFirst().record().seq();
    List<byte[]> lines = new ArrayList<>(batch.size());
    batch.forEach(e -> lines.add(e.line()));
    synchronized (connectionLock) {
      // Sent only once the insert has answered: a batch whose insert fails, times out or loses the
      // session before that was never committed and never will be (SPEC.md 60.7, "Faults").
      boolean commitSent = false;
      try {
        connection.setAutoCommit(false);
        int inserted;
        try {
          inserted = insert(first, lines);
        } catch (JournalException refused) {
          throw fail(refused);
        }
        if (inserted != lines.size()) {
          // Nothing of it is committed: fail() closes the session, which ends the transaction.
          throw fail(
              shortInsert(
                  seq,
                  inserted,
                  lines.size(),
                  "journal "
                      + describe()
                      + " was taken over by another steward (its epoch is no longer "
                      + epoch
                      + "); nothing more is written"));
        }
        commitSent = true;
        SQLWarning warned = commit();
        connection.setAutoCommit(true);
        if (warned != null) {
          // PostgreSQL answers a COMMIT whose wait for its synchronous standbys was cancelled
          // (pg_cancel_backend) with success and a warning: committed here, perhaps on no standby.
          // Not the durability the server is configured for, so the batch is refused.
          throw fail(
              new JournalException(
                  JournalException.Reason.FAILED,
                  seq,
                  "write to journal "
                      + describe()
                      + " "
                      + committedWithWarning(warned)
                      + "; records "
                      + foundOnRestart(first, lines.size())
                      + ". Find why the commit was not confirmed (a standby down, a session"
                      + " cancelled by hand), then restart the steward",
                  warned));
        }
      } catch (SQLException e) {
        if (!commitSent && JournalSchema.lockTimedOut(e)) {
          throw fail(lockTimedOut(e, seq));
        }
        boolean collided = "23505".equals(e.getSQLState());
        throw fail(
            new JournalException(
                collided ? JournalException.Reason.FENCED : JournalException.Reason.FAILED,
                seq,
                (collided
                        ? "another steward wrote record " + first + " of journal " + describe()
                        : "write to journal " + describe() + " failed")
                    + ": "
                    + FailureWords.of(e)
                    + (commitSent ? commitFailed(e, first, lines.size()) : ""),
                e));
      }
    }
    // The group commit runs one step at a time, in order: the end only moves forward.
    JournalChain.Encoded last = batch.getLast();
    durable =
        new JournalPosition(
            last.record().seq() + 1, Optional.of(ContentId.ofBytes(last.line())), -1);
  }

  /**
   * The refusal of a batch whose insert waited the journal's {@code lock_timeout} for a lock on the
   * record table or the owner row its fence reads and was cancelled: nothing of it is committed (no
   * {@code COMMIT} was sent), and the session that holds the lock is named where it can be.
   */
  private JournalException lockTimedOut(SQLException e, long seq) {
    String why;
    try {
      connection.rollback();
      why =
          JournalSchema.lockTimedOut(
              connection,
              tables,
              location.lockTimeout(),
              JournalSchema.Wait.write("mesh_journal_record"),
              // The fence's FOR SHARE of the owner row.
              new JournalSchema.Wait("mesh_journal_owner", "RowShareLock"));
    } catch (SQLException notKnown) {
      e.addSuppressed(notKnown);
      why = FailureWords.of(e);
    }
    return new JournalException(
        JournalException.Reason.FAILED,
        seq,
        "write to journal "
            + describe()
            + " "
            + why
            + ". Nothing of the batch is committed and nothing more is written; restart the"
            + " steward once the lock is let go",
        e);
  }

  /**
   * Why the fenced insert stored {@code inserted} of its {@code expected} rows, in its still open
   * transaction. The fence lets the rows through only while this journal's epoch is current, so
   * fewer rows usually mean another steward took over ({@code takenOver}, {@code FENCED}); an owner
   * row that is gone was deleted by hand ({@code FAILED}, saying so). Where the epoch is still this
   * journal's, something on the table dropped them (a {@code BEFORE INSERT} trigger returning null,
   * a rule {@code DO INSTEAD NOTHING}): no steward took over, and saying one had would send the
   * operator after the wrong thing, so that is {@code FAILED}, naming what the table carries. Asked
   * only on this failing path.
   */
  private JournalException shortInsert(long seq, int inserted, int expected, String takenOver)
      throws SQLException {
    JournalSchema.OwnerEpoch current = JournalSchema.epoch(connection, tables, name);
    if (!current.found()) {
      return ownerRowGone(seq);
    }
    Long held = current.epoch();
    if (held == null || held < epoch) {
      return ownerEpochEdited(seq, held);
    }
    if (held != epoch) {
      return new JournalException(JournalException.Reason.FENCED, seq, takenOver, null);
    }
    return new JournalException(
        JournalException.Reason.FAILED,
        seq,
        "write to journal "
            + describe()
            + " stored "
            + inserted
            + " of its "
            + expected
            + " records although its epoch ("
            + epoch
            + ") is still current, so no steward took it over: something on table"
            + " mesh_journal_record drops rows ("
            + carried("a BEFORE INSERT trigger returning NULL, a rule")
            + "). Nothing of the batch is committed and nothing more is written; remove it, then"
            + " restart the steward",
        null);
  }

  /**
   * What on {@code mesh_journal_record} may have changed a batch's rows, for a refusal: the
   * triggers and rules the journal did not make ({@code it carries …}), or {@code none} where it
   * carries none. Asked in the batch's still open transaction, on the failing path only.
   */
  private String carried(String none) throws SQLException {
    List<String> on = JournalSchema.rowDroppers(connection, tables);
    return on.isEmpty() ? none : "it carries " + String.join(", ", on);
  }

  /**
   * The journal's owner row is gone: a successor raises the row, never removes it, so someone
   * deleted it by hand, and no steward took over ({@code seq} -1 when no record is concerned).
   * Unless row-level security hides it from the role: then it is named as that.
   */
  private JournalException ownerRowGone(long seq) throws SQLException {
    Optional<String> hiddenFrom =
        JournalSchema.rowSecurityFor(connection, tables, "mesh_journal_owner");
    if (hiddenFrom.isPresent()) {
      // Hidden, not gone: restarting as the refusal below says would be refused the same way.
      return new JournalException(
          JournalException.Reason.FAILED,
          seq,
          "journal "
              + describe()
              + " cannot see its owner row: row-level security applies to role "
              + hiddenFrom.get()
              + " on mesh_journal_owner (turned on while the steward ran), so whether another"
              + " steward took it over is not known and its writes are refused; nothing more is"
              + " written. Disable it on the table (ALTER TABLE "
              + JournalSchema.qualified(connection, tables, "mesh_journal_owner")
              + " DISABLE ROW LEVEL SECURITY) or give the role BYPASSRLS, then restart the"
              + " steward",
          null);
    }
    return new JournalException(
        JournalException.Reason.FAILED,
        seq,
        "journal "
            + describe()
            + " has no owner row in mesh_journal_owner any more (deleted by hand: no steward"
            + " removes it), so its writes are refused; nothing more is written. Stop every"
            + " steward of this journal, then restart one (it starts again at epoch 1, with"
            + " every record)",
        null);
  }

  /**
   * The journal's owner row holds epoch NULL ({@code value} null), 0 or less, or one below the
   * epoch this journal opened at: no steward writes any of them (the column is NOT NULL and above 0
   * as the journal creates it, and a successor only raises it), so a DBA changed the row. Read as
   * the driver hands NULL back, 0, it was "taken over at epoch 0", or a deleted row, and one set
   * back was "taken over by another steward"; none is so, and whether another steward took over
   * cannot be told ({@code seq} -1 when no record is concerned).
   */
  private JournalException ownerEpochEdited(long seq, @Nullable Long value) {
    boolean setBack = value != null && value > 0;
    return new JournalException(
        JournalException.Reason.FAILED,
        seq,
        "journal "
            + describe()
            + " has epoch "
            + (value == null ? "NULL" : value)
            + " in its owner row in mesh_journal_owner ("
            + (setBack
                ? "below the " + epoch + " it opened at, and a successor only raises it: the row"
                : "no steward writes one: "
                    + (value == null
                        ? "the column's NOT NULL was dropped"
                        : "epochs start at 1; the column's CHECK was dropped")
                    + " and the row")
            + " changed by hand), so whether another"
            + " steward took it over is not known and its writes are refused; nothing more is"
            + " written. Stop every steward of this journal, "
            + (setBack ? "" : "put back the constraint, ")
            + "then delete its row (the next open starts again at epoch 1, with every record)",
        null);
  }

  /**
   * What an operator should know of a batch whose {@code COMMIT} failed with {@code e}. Where the
   * server answered it with an error and the session went on (a deferred trigger or constraint
   * raising, a serialization failure), it rolled the transaction back: nothing of the batch is
   * stored. Otherwise the server may have committed it, so its records may be found when the
   * steward restarts (SPEC.md 60.7, "Faults").
   */
  private String commitFailed(SQLException e, long first, int n) {
    if (!rolledBack(e)) {
      return "; its commit went unanswered, so records " + foundOnRestart(first, n);
    }
    return "; the server answered its commit with this error and rolled it back, so records "
        + first
        + " to "
        + (first + n - 1)
        + " are not stored (their waiters were refused, and no receipt of theirs was handed out)";
  }

  /**
   * Whether the {@code COMMIT} that failed with {@code e} is known to have been rolled back: the
   * server answered it with an error (no lost session's SQLSTATE) and the session is still open,
   * which the driver keeps only once the server has said it is ready for the next command. No code
   * proves it alone: a trigger may raise any, and a server that cannot end a transaction it has
   * already committed, or fails to flush the commit to its log, stops instead, its last words
   * ({@code PANIC}, {@code XX000} "cannot abort transaction ..., it was already committed", {@code
   * 58030} "could not fsync file") thrown ahead of the lost connection. Such a commit may be found
   * on restart, and calling it not stored would let a caller try again and be served twice.
   */
  private boolean rolledBack(SQLException e) {
    try {
      return !sessionLost(e.getSQLState()) && !connection.isClosed();
    } catch (SQLException notKnown) {
      return false;
    }
  }

  /** What becomes of records {@code first .. first + n - 1}, refused but perhaps committed. */
  private static String foundOnRestart(long first, int n) {
    return first
        + " to "
        + (first + n - 1)
        + " may still be found on restart although their waiters were refused: an authorisation"
        + " among them then comes back unresolved (held at its joule ceiling, its presentation"
        + " spent), and no receipt of theirs was handed out";
  }

  /**
   * Commits the session's transaction and returns the warning the server answered the {@code
   * COMMIT} with, if any (see {@link #warning}).
   */
  private @Nullable SQLWarning commit() throws SQLException {
    connection.clearWarnings();
    connection.commit();
    return warning(connection.getWarnings());
  }

  /** Why a commit answered with {@code w} is not taken as durable. */
  private static String committedWithWarning(SQLWarning w) {
    return "was committed with a warning from the server, \""
        + w.getMessage()
        + "\" (SQLSTATE "
        + w.getSQLState()
        + "), so it is not known to be as durable as the server is configured to make it (a"
        + " commit whose wait for a synchronous standby was cancelled is on this server's disk"
        + " only)";
  }

  /**
   * The first warning in {@code chain}, or null: a server's notices (SQLSTATE class {@code 00}) are
   * not warnings about the statement and are passed over.
   */
  private static @Nullable SQLWarning warning(@Nullable SQLWarning chain) {
    for (SQLWarning w = chain; w != null; w = w.getNextWarning()) {
      String state = w.getSQLState();
      if (state == null || !state.startsWith("00")) {
        return w;
      }
    }
    return null;
  }

  /**
   * Inserts {@code lines} as records {@code first, first + 1, …} in one statement, on the condition
   * that this journal's epoch is still current; returns the rows inserted (none when fenced).
   *
   * @throws JournalException {@code FAILED}, the transaction not committed, where a column was
   *     altered to another type (see {@link JournalSchema#fencedInsert})
   */
  private int insert(long first, List<byte[]> lines) throws SQLException, JournalException {
    Long[] seqs = new Long[lines.size()];
    for (int i = 0; i < seqs.length; i++) {
      seqs[i] = first + i;
    }
    Array seqArray = connection.createArrayOf("bigint", seqs);
    Array lineArray = connection.createArrayOf("bytea", lines.toArray(new byte[0][]));
    // The session's settings set again in the same request, before the insert and after it: a
    // RESET ALL since the last batch, or one the insert's own trigger ran, left the role's in
    // their place, a synchronous_commit = off for the COMMIT among them.
    try (PreparedStatement ps =
        connection.prepareStatement(SessionSettings.around(JournalSchema.fencedInsert(tables)))) {
      int at = settings.bind(connection, ps, 6);
      ps.setString(at + 1, name);
      ps.setLong(at + 2, epoch);
      ps.setArray(at + 3, seqArray);
      ps.setArray(at + 4, lineArray);
      ps.setString(at + 5, name);
      ps.setString(at + 6, name);
      ps.execute();
      if (!ps.getMoreResults()) {
        throw new SQLException("the batch's insert answered no rows");
      }
      try (ResultSet rs = ps.getResultSet()) {
        rs.next();
        if (!rs.getBoolean(2)) {
          // Before the commit: nothing of it is stored, and the caller fails the journal.
          throw new JournalException(
              JournalException.Reason.FAILED,
              first,
              "write to journal "
                  + describe()
                  + " refused: a column of mesh_journal_record no longer has the type the journal"
                  + " created it with (seq bigint, line bytea), so the server would store the"
                  + " records converted, in a form that does not read back as them (the table was"
                  + " altered by hand). Nothing of the batch is committed and nothing more is"
                  + " written; put the column back (ALTER TABLE ... TYPE), then restart the"
                  + " steward",
              null);
        }
        if (rs.getLong(4) > 0) {
          // Before the commit, as above: the rows answered may be ones a rule wrote elsewhere.
          throw new JournalException(
              JournalException.Reason.FAILED,
              first,
              "write to journal "
                  + describe()
                  + " refused: mesh_journal_record carries a rule (put on while the steward ran;"
                  + " "
                  + carried("a rule")
                  + "), under which the server may write the records elsewhere and answer them"
                  + " as stored. Nothing of the batch is committed and nothing more is written;"
                  + " drop it ("
                  + String.join(
                      "; ", JournalSchema.dropRules(connection, tables, "mesh_journal_record"))
                  + "), then restart the steward",
              null);
        }
        if (rs.getInt(3) != rs.getInt(1)) {
          throw rewritten(first, rs.getInt(1) - rs.getInt(3));
        }
        return rs.getInt(1);
      }
    } finally {
      seqArray.free();
      lineArray.free();
    }
  }

  /**
   * The refusal of a batch {@code changed} of whose rows the table stored otherwise than the
   * journal gave them (see {@link JournalSchema#fencedInsert}), in its still open transaction:
   * something on the table rewrites rows, and acknowledging the batch would hand out receipts for
   * records the journal does not hold.
   */
  private JournalException rewritten(long first, int changed) throws SQLException {
    return new JournalException(
        JournalException.Reason.FAILED,
        first,
        "write to journal "
            + describe()
            + " refused: "
            + changed
            + " of the rows mesh_journal_record stored are not the records it was given (the"
            + " journal, seq or line changed on the way in; "
            + carried("a BEFORE INSERT trigger or a rule")
            + "). Nothing of the batch is committed and nothing more is written; remove what"
            + " rewrites them, then restart the steward",
        null);
  }

  /** SQLSTATE {@code query_canceled}: a statement cancelled, its session left open. */
  private static final String QUERY_CANCELED = "57014";

  /** Runs before each heartbeat, on its thread: lets a test starve it (see beforeEachBeat). */
  private volatile Runnable beforeBeat = () -> {};

  /**
   * Runs {@code hook} on the heartbeat's thread before each beat: a test blocks in it to stall the
   * heartbeat as a starved thread or a long pause would, without a race against its timer.
   */
  void beforeEachBeat(Runnable hook) {
    beforeBeat = hook;
  }

  /** Speaks to the database so the session outlives its lease, and checks the epoch. */
  private void beat() {
    beforeBeat.run();
    if (commits.failure() != null || commits.closed()) {
      heartbeat.shutdown();
      return;
    }
    synchronized (connectionLock) {
      try {
        JournalSchema.EpochAt read = JournalSchema.epochAt(connection, tables, name);
        Long current = read.owner().epoch();
        if (read.backend() != backend) {
          fail(
              new JournalException(
                  JournalException.Reason.FAILED,
                  "journal "
                      + describe()
                      + " cannot tell that it still holds its lock: "
                      + pooled(backend, read.backend())
                      + "; nothing more is written",
                  null));
        } else if (!read.owner().found()) {
          fail(ownerRowGone(-1));
        } else if (current == null || current < epoch) {
          fail(ownerEpochEdited(-1, current));
        } else if (current != epoch) {
          fail(
              new JournalException(
                  JournalException.Reason.FENCED,
                  "journal "
                      + describe()
                      + " was taken over by another steward (epoch "
                      + current
                      + ", this one opened at "
                      + epoch
                      + "); nothing more is written",
                  null));
        }
      } catch (SQLException e) {
        if (!commits.closed()) {
          // A cancelled statement (pg_cancel_backend, a statement_timeout) leaves the session
          // open, but the epoch check did not run: failing stays the safe answer, in words that
          // do not send the operator after a connection that was never lost.
          String state = e.getSQLState();
          String what =
              QUERY_CANCELED.equals(state)
                  ? " had its heartbeat's check of the epoch cancelled, so whether another steward"
                      + " took it over is not known (the statement was cancelled, not the session: "
                  : sessionLost(state)
                      ? " lost its database session ("
                      // A privilege revoked, the owner table altered or dropped: the server
                      // answered, so the session was not lost, and saying so would mislead.
                      : " had its heartbeat's check of the epoch refused by the server, so whether"
                          + " another steward took it over is not known (";
          fail(
              new JournalException(
                  JournalException.Reason.FAILED,
                  "journal "
                      + describe()
                      + what
                      + beatFailed(e)
                      + "); nothing more is written until it is reopened",
                  e));
        }
      }
    }
  }

  /**
   * The server's words for the heartbeat's failed read {@code e}, or, for one refused at the
   * journal's {@code lock_timeout} (a DBA's lock on the owner table), the sessions holding a lock
   * there, as a batch or an opening refused so names them. Asked only outside a transaction: inside
   * an import's, which the refusal aborted, nothing more can be asked.
   */
  private String beatFailed(SQLException e) {
    if (!JournalSchema.lockTimedOut(e)) {
      return FailureWords.of(e);
    }
    try {
      if (!connection.getAutoCommit()) {
        return FailureWords.of(e);
      }
      return JournalSchema.lockTimedOut(
          connection,
          tables,
          location.lockTimeout(),
          JournalSchema.Wait.read("mesh_journal_owner"));
    } catch (SQLException notKnown) {
      e.addSuppressed(notKnown);
      return FailureWords.of(e);
    }
  }

  /**
   * Whether a statement's SQLSTATE {@code state} says the session itself is gone: none (the
   * driver's own failure), a connection exception (class {@code 08}, the driver's I/O errors and
   * timeouts among them) or the server ending it ({@code 57P01} to {@code 57P05}).
   */
  private static boolean sessionLost(@Nullable String state) {
    return state == null || state.startsWith("08") || state.startsWith("57P");
  }

  private JournalException fail(JournalException f) {
    if (commits.fail(f) == f) {
      LOG.error("{}; no further appends until reopened", f.getMessage());
    }
    // A failed journal holds no lock worth keeping: let a successor have it at once.
    heartbeat.shutdown();
    LockHolder.closeQuietly(connection);
    return f;
  }

  /** The epoch this journal opened with: one more than its predecessor's. */
  public long epoch() {
    return epoch;
  }

  /** The journal's name: its steward's identity. */
  public String name() {
    return name;
  }

  /** The heartbeat's period: a third of the lease. */
  Duration heartbeatEvery() {
    return heartbeatEvery(location.lease());
  }

  private static Duration heartbeatEvery(Duration lease) {
    return Duration.ofMillis(Math.max(100, lease.toMillis() / 3));
  }

  @Override
  public boolean durable() {
    return true;
  }

  @Override
  public String describe() {
    return name + " at " + location;
  }

  @Override
  public Optional<String> refusesAppends() {
    return commits.refusesAppends();
  }

  /**
   * Held from opening until closed or failed: the session that holds the advisory lock is closed
   * when the journal fails (or is fenced), so a successor can take it.
   */
  @Override
  public boolean locked() {
    return !commits.closed() && commits.failure() == null;
  }

  /** Releases the journal: its lock, at once, then its session. */
  @Override
  public void close() {
    commits.close(
        () -> {
          beating.cancel(false);
          heartbeat.shutdownNow();
          synchronized (connectionLock) {
            try {
              JournalSchema.unlock(connection, lockKey);
            } catch (SQLException ignored) {
              // A session already lost holds no lock; closing it below is all there is to do.
            }
            LockHolder.closeQuietly(connection);
          }
        });
  }
}
