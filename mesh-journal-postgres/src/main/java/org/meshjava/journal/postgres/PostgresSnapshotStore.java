package org.meshjava.journal.postgres;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Objects;
import java.util.Optional;
import org.meshjava.journal.Snapshot;
import org.meshjava.journal.SnapshotException;
import org.meshjava.journal.SnapshotHeader;
import org.meshjava.journal.SnapshotStore;
import org.meshjava.journal.internal.FailureWords;
import org.meshjava.journal.internal.SnapshotHeaderReader;

/**
 * Snapshots of a PostgreSQL journal kept in the same database (SPEC.md §60.8), so that a steward
 * with no disk of its own (a pod) restarts from one as a file journal's steward does:
 *
 * <pre>
 * mesh_journal_snapshot (journal text, count bigint, snapshot bytea,   -- one row per snapshot
 *                        PRIMARY KEY (journal, count))
 * </pre>
 *
 * Rows are keyed by the journal's name (the steward's identity) and the record count the snapshot
 * covers; a save inserts its row and drops all but the newest {@value #KEEP} of that journal in one
 * transaction, so a crash leaves the old latest or the new one. The store only keeps bytes: the
 * steward checks what it loads against its key and the journal ({@link Snapshot#open}), so a row
 * copied from another database or another steward is refused at start, not trusted.
 *
 * <p>A snapshot is at most {@link #MAX_BYTES} (512 MiB less 64 KiB, about 5.5 million receipts):
 * see there for why, and SPEC.md §60.8, "Size".
 *
 * <p>Saves are not fenced by the journal's epoch: a steward whose lease was taken over can only
 * snapshot records it wrote before, which are a prefix of the journal its successor continues, so
 * its snapshot is still a true one. Each call opens a connection of its own (snapshots are rare),
 * never the journal's, so a snapshot never holds up a commit. Thread-safe.
 */
public final class PostgresSnapshotStore implements SnapshotStore {
  /** How many snapshots are kept per journal: the latest, and the one before it. */
  public static final int KEEP = 2;

  /**
   * The largest snapshot this store saves and reads back, in bytes: 512 MiB less 64 KiB
   * (536,805,376). A {@code bytea} value may be up to 1 GB, but the driver reads this store's
   * one-off statements in text form, where a {@code bytea} is {@code \x} and two hex digits a byte,
   * and the server builds that text, and then the row's message holding it, each in one allocation
   * of at most 1 GiB less one byte. A larger row is written without complaint and then cannot be
   * read: on PostgreSQL 15 a row of 536,870,911 bytes failed "invalid memory alloc request size
   * 1073741825" and one of 536,870,910 "out of memory" (the message with its other fields), while
   * 536,870,890 was read back; the 64 KiB leave room for those fields.
   */
  public static final long MAX_BYTES = (512L << 20) - (64L << 10);

  /** PostgreSQL's SQLSTATE for a table that does not exist. */
  private static final String UNDEFINED_TABLE = "42P01";

  private final PostgresLocation location;
  private final String journal;
  private final long maxBytes;

  /** Runs in a save's transaction once its checks passed, before it writes: a test's seam. */
  private final Runnable afterChecks;

  private PostgresSnapshotStore(
      PostgresLocation location, String journal, long maxBytes, Runnable afterChecks) {
    this.location = Objects.requireNonNull(location, "location");
    this.journal = Objects.requireNonNull(journal, "journal");
    if (journal.isBlank()) {
      throw new IllegalArgumentException("a journal name is not blank");
    }
    this.maxBytes = maxBytes;
    this.afterChecks = Objects.requireNonNull(afterChecks, "afterChecks");
  }

  /**
   * The snapshots of journal {@code journal} (the name {@link PostgresJournal#open} took: the
   * steward's identity) in the database at {@code location}. Connects to nothing until used; the
   * table is created with the journal's (or on the first save).
   */
  public static PostgresSnapshotStore of(PostgresLocation location, String journal) {
    return new PostgresSnapshotStore(location, journal, MAX_BYTES, () -> {});
  }

  /** A store that keeps snapshots of at most {@code maxBytes}: lets a test reach the limit. */
  static PostgresSnapshotStore of(PostgresLocation location, String journal, long maxBytes) {
    return new PostgresSnapshotStore(location, journal, maxBytes, () -> {});
  }

  /**
   * A store whose saves run {@code afterChecks} in their transaction once the table's triggers and
   * collations were checked, before anything is written: lets a test change the table there.
   */
  static PostgresSnapshotStore of(PostgresLocation location, String journal, Runnable afterChecks) {
    return new PostgresSnapshotStore(location, journal, MAX_BYTES, afterChecks);
  }

  /** {@link #MAX_BYTES}, smaller only in tests. */
  @Override
  public long maxBytes() {
    return maxBytes;
  }

  /**
   * {@inheritDoc}
   *
   * @throws SnapshotException {@code TOO_LARGE}, before connecting, if the snapshot is larger than
   *     {@link #maxBytes()}: the row would be stored, become the latest and then fail every read;
   *     {@code IO}
   */
  @Override
  public void save(Snapshot snapshot) throws SnapshotException {
    long count = snapshot.position().count();
    long size = snapshot.encodedLength();
    if (size > maxBytes) {
      throw SnapshotException.tooLarge("the snapshot at record " + count, size, maxBytes);
    }
    try (PostgresLocation.Session session = location.session()) {
      Connection c = session.connection();
      JournalTables t = session.tables();
      JournalSchema.refuseReadOnly(c);
      JournalSchema.create(c, t); // the journal's tables, this one among them
      JournalSchema.refuseMissingPrivileges(
          c,
          t,
          "mesh_journal_snapshot",
          "saving a snapshot needs (it replaces a row and drops all but the newest " + KEEP + ")",
          JournalSchema.Privilege.on("SELECT", "journal", "count", "snapshot"),
          JournalSchema.Privilege.on("INSERT", "journal", "count", "snapshot"),
          // The save's ON CONFLICT sets this one alone.
          JournalSchema.Privilege.on("UPDATE", "snapshot"),
          JournalSchema.Privilege.on("DELETE"));
      c.setAutoCommit(false);
      try {
        // The table's lock first, the one the insert takes: CREATE TRIGGER and ALTER TABLE wait
        // for it, so the checks below see what the insert and the delete run under. Checked
        // before the transaction, a trigger made between the check and the insert was fired by a
        // save that had not seen it (PostgresSnapshotTriggerRaceTest).
        try (Statement s = c.createStatement()) {
          s.execute("LOCK TABLE " + t.snapshot() + " IN ROW EXCLUSIVE MODE");
        }
        // A DBA may put one on while the steward runs: its journal, open, checks no more, and
        // under it this save would go into (and prune) the rows of a journal whose name differs in
        // case.
        JournalSchema.refuseNondeterministicCollations(c, t);
        JournalSchema.refuseUncheckedSnapshotWriters(c, t);
        afterChecks.run();
        try (PreparedStatement ps =
            c.prepareStatement(
                "INSERT INTO "
                    + t.snapshot()
                    + " (journal, count, snapshot) VALUES (?, ?, ?)"
                    + " ON CONFLICT (journal, count) DO UPDATE SET snapshot = EXCLUDED.snapshot")) {
          ps.setString(1, journal);
          ps.setLong(2, count);
          ps.setBytes(3, snapshot.encoded());
          ps.executeUpdate();
        }
        try (PreparedStatement ps =
            c.prepareStatement(
                "DELETE FROM "
                    + t.snapshot()
                    + " WHERE journal OPERATOR(pg_catalog.=) ?"
                    + " AND count OPERATOR(pg_catalog.<>) ALL (SELECT count FROM "
                    + t.snapshot()
                    + " WHERE journal OPERATOR(pg_catalog.=) ?"
                    + " ORDER BY count DESC LIMIT ?)")) {
          ps.setString(1, journal);
          ps.setString(2, journal);
          ps.setInt(3, KEEP);
          ps.executeUpdate();
        }
        c.commit();
      } catch (SQLException e) {
        JournalSchema.rolledBack(c, e);
        // The server's "canceling statement due to lock timeout" names neither the table nor who
        // holds it, and the DBA's session is what the operator must find. The save's statements
        // each take ROW EXCLUSIVE on the table: a reader's lock beside the DBA's does not hold it
        // up. A wait for a row (a DBA's FOR UPDATE) finds no conflicting mode, and every holder is
        // named; a role that may not read pg_locks keeps the lock's refusal, the lookup's failure
        // suppressed on it.
        throw JournalSchema.holdersNamed(
            c, t, location.lockTimeout(), e, JournalSchema.Wait.write("mesh_journal_snapshot"));
      }
    } catch (SQLException e) {
      throw new SnapshotException(
          SnapshotException.Reason.IO,
          "cannot write the snapshot of "
              + count
              + " records to "
              + describe()
              + ": "
              + FailureWords.of(e),
          e);
    }
  }

  /**
   * {@inheritDoc}
   *
   * @throws SnapshotException {@code TOO_LARGE} naming the row if the latest is larger than {@link
   *     #maxBytes()} (an older version saved it, or another client wrote it): the server could not
   *     send it, and a steward then replays its journal whole rather than refusing to start; {@code
   *     IO}
   */
  @Override
  public Optional<byte[]> latest() throws SnapshotException {
    try (PostgresLocation.Session session = location.session()) {
      Connection c = session.connection();
      // As a save does: under a nondeterministic collation the latest row of a journal whose name
      // differs from this one's in case alone would be read as this journal's.
      JournalSchema.refuseNondeterministicCollations(c, session.tables());
      return latest(c, session.tables());
    } catch (SQLException e) {
      if (UNDEFINED_TABLE.equals(e.getSQLState())) {
        return Optional.empty(); // no steward of this database has saved a snapshot yet
      }
      throw new SnapshotException(
          SnapshotException.Reason.IO, "cannot read " + describe() + ": " + FailureWords.of(e), e);
    }
  }

  /** The latest row's bytes, read on {@code c} (see {@link #latest()}). */
  private Optional<byte[]> latest(Connection c, JournalTables t)
      throws SQLException, SnapshotException {
    try (PreparedStatement ps =
        c.prepareStatement(
            // The size first, and the bytes only where they can be sent.
            "SELECT count, pg_catalog.octet_length(snapshot),"
                + " CASE WHEN pg_catalog.octet_length(snapshot) OPERATOR(pg_catalog.<=) ?"
                + " THEN snapshot END"
                + " FROM "
                + t.snapshot()
                + " WHERE journal OPERATOR(pg_catalog.=) ?"
                + " ORDER BY count DESC LIMIT 1")) {
      ps.setLong(1, maxBytes);
      ps.setString(2, journal);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          return Optional.empty();
        }
        long size = rs.getLong(2);
        if (size > maxBytes) {
          throw SnapshotException.tooLarge(
              "the latest snapshot in " + describe() + " (count " + rs.getLong(1) + ")",
              size,
              maxBytes);
        }
        byte[] bytes = rs.getBytes(3);
        if (bytes == null) {
          // A DBA who dropped the column's NOT NULL and emptied the row: Optional.of(null) ended
          // the read in a NullPointerException.
          throw nulled(rs.getLong(1));
        }
        return Optional.of(bytes);
      }
    } catch (SQLException e) {
      throw JournalSchema.holdersNamed(
          c, t, location.lockTimeout(), e, JournalSchema.Wait.read("mesh_journal_snapshot"));
    }
  }

  /**
   * {@inheritDoc}
   *
   * <p>Read a slice at a time ({@code substring} of the row's {@code snapshot}, one 64 KiB slice
   * per read, in one read-only transaction), so that the body's large byte strings, which the
   * header's reader skips by their lengths, never leave the server: a row too large to read ({@code
   * TOO_LARGE}) still gives its header, and a steward starting past it keeps the checks of SPEC.md
   * §60.8 "Size" (a journal rolled back behind it is refused).
   *
   * @throws SnapshotException {@code MALFORMED} if the latest row holds no readable header, {@code
   *     IO} if the database cannot be read
   */
  @Override
  public Optional<SnapshotHeader> latestHeader() throws SnapshotException {
    try (PostgresLocation.Session session = location.session()) {
      Connection c = session.connection();
      // One snapshot of the table for every slice: a save meanwhile replaces no byte read here.
      c.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
      c.setReadOnly(true);
      c.setAutoCommit(false);
      try {
        // As latest() does: another journal's row would be read as this one's.
        JournalSchema.refuseNondeterministicCollations(c, session.tables());
        return header(c, session.tables());
      } catch (SQLException e) {
        // Not a rollback in a finally: on a session the server ended, its "This connection has
        // been closed." would replace the server's own words for why.
        throw JournalSchema.holdersNamed(
            c,
            session.tables(),
            location.lockTimeout(),
            JournalSchema.rolledBack(c, e),
            JournalSchema.Wait.read("mesh_journal_snapshot"));
      }
    } catch (SQLException e) {
      if (UNDEFINED_TABLE.equals(e.getSQLState())) {
        return Optional.empty(); // no steward of this database has saved a snapshot yet
      }
      throw new SnapshotException(
          SnapshotException.Reason.IO,
          "cannot read the latest snapshot's header in " + describe() + ": " + FailureWords.of(e),
          e);
    }
  }

  /**
   * The refusal of the latest row, at {@code count}, holding NULL: a DBA who dropped the column's
   * NOT NULL and emptied the row.
   */
  private SnapshotException nulled(long count) {
    return new SnapshotException(
        SnapshotException.Reason.MALFORMED,
        "the latest snapshot in "
            + describe()
            + " (count "
            + count
            + ") is NULL: the store never saves one (the column is NOT NULL as it creates it), so"
            + " the row, or the column's constraint, was changed by other than the store",
        null);
  }

  /** The latest row's header, read a slice at a time in {@code c}'s transaction. */
  private Optional<SnapshotHeader> header(Connection c, JournalTables t)
      throws SQLException, SnapshotException {
    long count;
    long size;
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT count, pg_catalog.octet_length(snapshot) FROM "
                + t.snapshot()
                + " WHERE journal OPERATOR(pg_catalog.=) ?"
                + " ORDER BY count DESC LIMIT 1")) {
      ps.setString(1, journal);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          return Optional.empty();
        }
        count = rs.getLong(1);
        size = rs.getLong(2);
        if (rs.wasNull()) {
          // octet_length(NULL) is NULL, which the driver hands back as 0: the header's read then
          // said the snapshot ended at byte 0, as if it had been cut short.
          throw nulled(count);
        }
      }
    }
    try (PreparedStatement slice =
        c.prepareStatement(
            "SELECT pg_catalog.substr(snapshot, ?, ?) FROM "
                + t.snapshot()
                + " WHERE journal OPERATOR(pg_catalog.=) ? AND count OPERATOR(pg_catalog.=) ?")) {
      slice.setString(3, journal);
      slice.setLong(4, count);
      return Optional.of(SnapshotHeaderReader.read(size, (dst, at) -> read(slice, dst, at)));
    } catch (IOException e) {
      throw e.getCause() instanceof SQLException sql ? sql : new SQLException(e.getMessage(), e);
    }
  }

  /** One slice of the row {@code slice} selects, from offset {@code at}, into {@code dst}. */
  private static int read(PreparedStatement slice, ByteBuffer dst, long at) throws IOException {
    try {
      // substring counts from 1, in int: a bytea is at most 1 GB.
      slice.setInt(1, Math.toIntExact(at + 1));
      slice.setInt(2, dst.remaining());
      try (ResultSet rs = slice.executeQuery()) {
        byte[] bytes = rs.next() ? rs.getBytes(1) : null;
        if (bytes == null) {
          return -1; // the row is gone: the header ends here, which the reader refuses
        }
        dst.put(bytes);
        return bytes.length;
      }
    } catch (SQLException e) {
      throw new IOException(e.getMessage(), e);
    }
  }

  /** The database (without its password), the table and the journal's name. */
  @Override
  public String describe() {
    return location + " (mesh_journal_snapshot, journal " + journal + ")";
  }
}
