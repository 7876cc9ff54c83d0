package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.meshjava.cli.PostgresServes.grant;
import static org.meshjava.cli.PostgresServes.payload;
import static org.meshjava.cli.PostgresServes.request;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.jcp.GrantChain;
import org.meshjava.jcp.Jcp;
import org.meshjava.journal.Snapshot;
import org.meshjava.journal.SnapshotException;
import org.meshjava.journal.SnapshotHeader;
import org.meshjava.journal.SnapshotStore;
import org.meshjava.journal.postgres.PostgresJournal;
import org.meshjava.journal.postgres.PostgresLocation;
import org.meshjava.journal.postgres.PostgresSnapshotStore;
import org.meshjava.steward.Steward;
import org.meshjava.steward.StewardStartException;
import org.meshjava.testpg.PostgresTestServer;

/**
 * Regression: a steward on PostgreSQL whose latest snapshot row is too large to read ({@code
 * TOO_LARGE}) replayed its journal whole with no rollback check, since the PostgreSQL store read no
 * header, where the file store's start checks the journal against the snapshot's header (SPEC.md
 * §60.8, "Size"). A journal rolled back behind that snapshot (rows deleted from its end, or then
 * grown by another history) started, and the serves it had forgotten could be spent again. The
 * store now reads the row's header a slice at a time, and such a start is refused as the file case
 * is.
 */
class PostgresTooLargeSnapshotStartTest {
  private final SigningKey stewardKey = SigningKey.generate();
  private final SigningKey caller = SigningKey.generate();
  private final Instant now = Instant.ofEpochSecond(Instant.now().getEpochSecond());
  private final String name = Jcp.identity(stewardKey).value();

  /**
   * The database's store, as one whose latest row is too large to read: its reads are refused
   * {@code TOO_LARGE}, as the real store refuses a row over its limit (which a test cannot write),
   * and the header comes from the real store.
   */
  private record TooLargeToRead(PostgresSnapshotStore store) implements SnapshotStore {
    @Override
    public void save(Snapshot snapshot) throws SnapshotException {
      store.save(snapshot);
    }

    @Override
    public Optional<byte[]> latest() throws SnapshotException {
      throw SnapshotException.tooLarge("the latest snapshot in " + describe(), 1L << 30, 64);
    }

    @Override
    public Optional<SnapshotHeader> latestHeader() throws SnapshotException {
      return store.latestHeader();
    }

    @Override
    public String describe() {
      return store.describe();
    }
  }

  private Steward steward(PostgresLocation location, SnapshotStore store, boolean fresh)
      throws Exception {
    return PostgresServes.steward(
        stewardKey, InstantSource.fixed(now), PostgresJournal.open(location, name), store, fresh);
  }

  private long rows(PostgresTestServer server, String db) throws Exception {
    try (Connection c = server.connect(db);
        PreparedStatement ps =
            c.prepareStatement("SELECT count(*) FROM mesh_journal_record WHERE journal = ?")) {
      ps.setString(1, name);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  private void deleteFrom(PostgresTestServer server, String db, long seq) throws Exception {
    try (Connection c = server.connect(db);
        PreparedStatement ps =
            c.prepareStatement("DELETE FROM mesh_journal_record WHERE journal = ? AND seq >= ?")) {
      ps.setString(1, name);
      ps.setLong(2, seq);
      ps.executeUpdate();
    }
  }

  /** The records the latest snapshot row covers, read whole (it fits the real store). */
  private static long covered(PostgresSnapshotStore store) throws Exception {
    return Snapshot.openAsNamed(store.latest().orElseThrow()).position().count();
  }

  private StewardStartException refused(PostgresLocation location, SnapshotStore store) {
    return catchThrowableOfType(
        StewardStartException.class, () -> steward(location, store, false).close());
  }

  @Test
  @Timeout(180)
  void aJournalRolledBackBehindATooLargeSnapshotRow_isRefusedAtStart() throws Exception {
    PostgresTestServer server = PostgresTestServer.shared();
    String db = server.newDatabase();
    // A session closed by one steward ends on the server a moment later: the next one waits.
    PostgresLocation location = PostgresLocation.parse(server.url(db) + "?lock_wait_ms=20000");
    PostgresSnapshotStore store = PostgresSnapshotStore.of(location, name);
    TooLargeToRead tooLarge = new TooLargeToRead(store);
    GrantChain chain = grant(caller, stewardKey, now, 3600);
    long kept;
    try (Steward s = steward(location, store, true)) {
      ServeRequest req = request("kept");
      s.serve(req, payload(req), Jcp.present(caller, chain, req));
      kept = rows(server, db);
      for (int i = 0; i < 2; i++) {
        ServeRequest later = request("forgotten " + i);
        s.serve(later, payload(later), Jcp.present(caller, chain, later));
      }
    } // the close saves a snapshot covering every record
    long covered = covered(store);
    assertThat(covered).isEqualTo(rows(server, db)).isGreaterThan(kept);

    // The intact journal starts past the unreadable row, replaying it whole.
    steward(location, tooLarge, false).close();
    covered = covered(store);

    // Rolled back to the first serve: shorter than the snapshot covers.
    deleteFrom(server, db, kept);
    StewardStartException shorter = refused(location, tooLarge);
    assertThat(shorter).as("a start on the rolled-back journal").isNotNull();
    assertThat(shorter.snapshotRefusal()).contains(SnapshotException.Reason.AHEAD_OF_JOURNAL);
    assertThat(shorter).hasMessageContaining("covers " + covered + " records");

    // The rolled-back journal grown past the snapshot's position by another history.
    try (Steward s =
        PostgresServes.steward(
            stewardKey,
            InstantSource.fixed(now),
            PostgresJournal.open(location, name),
            null,
            false)) {
      for (int i = 0; i < 6; i++) {
        ServeRequest req = request("another " + i);
        s.serve(req, payload(req), Jcp.present(caller, chain, req));
      }
    }
    assertThat(rows(server, db)).isGreaterThan(covered);
    StewardStartException other = refused(location, tooLarge);
    assertThat(other).as("a start on another history").isNotNull();
    assertThat(other.snapshotRefusal()).contains(SnapshotException.Reason.NOT_IN_JOURNAL);
    assertThat(other).hasMessageContaining("does not hash as the snapshot says");
  }
}
