package org.meshjava.journal.postgres;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Objects;
import java.util.Optional;
import org.meshjava.journal.Snapshot;
import org.meshjava.journal.SnapshotException;
import org.meshjava.journal.SnapshotStore;

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
 * <p>Saves are not fenced by the journal's epoch: a steward whose lease was taken over can only
 * snapshot records it wrote before, which are a prefix of the journal its successor continues, so
 * its snapshot is still a true one. Each call opens a connection of its own (snapshots are rare),
 * never the journal's, so a snapshot never holds up a commit. Thread-safe.
 */
public final class PostgresSnapshotStore implements SnapshotStore {
  /** How many snapshots are kept per journal: the latest, and the one before it. */
  public static final int KEEP = 2;

  /** PostgreSQL's SQLSTATE for a table that does not exist. */
  private static final String UNDEFINED_TABLE = "42P01";

  private final PostgresLocation location;
  private final String journal;

  private PostgresSnapshotStore(PostgresLocation location, String journal) {
    this.location = Objects.requireNonNull(location, "location");
    this.journal = Objects.requireNonNull(journal, "journal");
    if (journal.isBlank()) {
      throw new IllegalArgumentException("a journal name is not blank");
    }
  }

  /**
   * The snapshots of journal {@code journal} (the name {@link PostgresJournal#open} took: the
   * steward's identity) in the database at {@code location}. Connects to nothing until used; the
   * table is created with the journal's (or on the first save).
   */
  public static PostgresSnapshotStore of(PostgresLocation location, String journal) {
    return new PostgresSnapshotStore(location, journal);
  }

  @Override
  public void save(Snapshot snapshot) throws SnapshotException {
    long count = snapshot.position().count();
    try (Connection c = location.connect()) {
      JournalSchema.create(c); // the journal's tables, this one among them
      c.setAutoCommit(false);
      try {
        try (PreparedStatement ps =
            c.prepareStatement(
                "INSERT INTO mesh_journal_snapshot (journal, count, snapshot) VALUES (?, ?, ?)"
                    + " ON CONFLICT (journal, count) DO UPDATE SET snapshot = EXCLUDED.snapshot")) {
          ps.setString(1, journal);
          ps.setLong(2, count);
          ps.setBytes(3, snapshot.encoded());
          ps.executeUpdate();
        }
        try (PreparedStatement ps =
            c.prepareStatement(
                "DELETE FROM mesh_journal_snapshot WHERE journal = ? AND count NOT IN"
                    + " (SELECT count FROM mesh_journal_snapshot WHERE journal = ?"
                    + " ORDER BY count DESC LIMIT ?)")) {
          ps.setString(1, journal);
          ps.setString(2, journal);
          ps.setInt(3, KEEP);
          ps.executeUpdate();
        }
        c.commit();
      } catch (SQLException e) {
        c.rollback();
        throw e;
      }
    } catch (SQLException e) {
      throw new SnapshotException(
          SnapshotException.Reason.IO,
          "cannot write the snapshot of "
              + count
              + " records to "
              + describe()
              + ": "
              + e.getMessage(),
          e);
    }
  }

  @Override
  public Optional<byte[]> latest() throws SnapshotException {
    try (Connection c = location.connect()) {
      return JournalSchema.query(
          c,
          "SELECT snapshot FROM mesh_journal_snapshot WHERE journal = ?"
              + " ORDER BY count DESC LIMIT 1",
          journal,
          rs -> rs.next() ? Optional.of(rs.getBytes(1)) : Optional.empty());
    } catch (SQLException e) {
      if (UNDEFINED_TABLE.equals(e.getSQLState())) {
        return Optional.empty(); // no steward of this database has saved a snapshot yet
      }
      throw new SnapshotException(
          SnapshotException.Reason.IO, "cannot read " + describe() + ": " + e.getMessage(), e);
    }
  }

  /** The database (without its password), the table and the journal's name. */
  @Override
  public String describe() {
    return location + " (mesh_journal_snapshot, journal " + journal + ")";
  }
}
