package org.meshjava.journal.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.meshjava.core.ContentId;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.jcp.Gate;
import org.meshjava.jcp.Jcp;
import org.meshjava.jcp.Revocations;
import org.meshjava.jcp.SpendLedger;
import org.meshjava.journal.JournalPosition;
import org.meshjava.journal.Snapshot;
import org.meshjava.journal.SnapshotException;
import org.meshjava.journal.SnapshotState;
import org.meshjava.journal.internal.ReplayState;
import org.meshjava.testpg.PostgresTestServer;

/**
 * Snapshots kept in the journal's database (SPEC.md §60.7, §60.8): per journal, the latest is the
 * one covering most records, the newest two are kept, and nothing is there before the first save.
 */
class PostgresSnapshotStoreTest {
  static final SigningKey STEWARD = SigningKey.generate();

  /** A signed snapshot of a fresh state, claiming to cover {@code count} records. */
  static Snapshot at(long count) {
    SnapshotState s =
        ReplayState.fresh(
                Gate.create(Jcp.identity(STEWARD), SpendLedger.inMemory(), Revocations.none()))
            .capture(-1);
    return Snapshot.sign(
        STEWARD,
        new SnapshotState(
            new JournalPosition(
                count, Optional.of(ContentId.ofBytes(new byte[] {(byte) count})), -1),
            s.ledger(),
            s.revocations(),
            s.suspension(),
            s.lastSealed(),
            s.receipts(),
            s.open(),
            s.settled(),
            s.checkpoint(),
            s.chains(),
            s.authorisations(),
            s.revocationsReplayed()));
  }

  /** A new database whose snapshot table holds journal {@code did:key:a}'s snapshot at 1. */
  static String databaseWithASnapshot(PostgresTestServer server) throws SnapshotException {
    String db = server.newDatabase();
    PostgresSnapshotStore.of(PostgresLocation.parse(server.url(db)), "did:key:a").save(at(1));
    return db;
  }

  private static List<Long> counts(PostgresTestServer server, String db, String journal)
      throws Exception {
    List<Long> out = new ArrayList<>();
    try (Connection c = server.connect(db);
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT count FROM mesh_journal_snapshot WHERE journal = '"
                    + journal
                    + "' ORDER BY count")) {
      while (rs.next()) {
        out.add(rs.getLong(1));
      }
    }
    return out;
  }

  @Test
  void theLatest_isTheOneCoveringMostRecords_perJournal_andTheNewestTwoAreKept() throws Exception {
    PostgresTestServer server = PostgresTestServer.shared();
    String db = server.newDatabase();
    PostgresLocation location = PostgresLocation.parse(server.url(db));
    PostgresSnapshotStore store = PostgresSnapshotStore.of(location, "did:key:a");
    PostgresSnapshotStore other = PostgresSnapshotStore.of(location, "did:key:b");
    // No table yet: nothing stored.
    assertThat(store.latest()).isEmpty();

    store.save(at(20));
    assertThat(store.latest()).hasValueSatisfying(b -> assertThat(b).isEqualTo(at(20).encoded()));
    assertThat(other.latest()).isEmpty();
    store.save(at(3));
    store.save(at(100));
    other.save(at(7));
    assertThat(store.latest()).hasValueSatisfying(b -> assertThat(b).isEqualTo(at(100).encoded()));
    assertThat(other.latest()).hasValueSatisfying(b -> assertThat(b).isEqualTo(at(7).encoded()));
    assertThat(counts(server, db, "did:key:a")).containsExactly(20L, 100L);
    assertThat(counts(server, db, "did:key:b")).containsExactly(7L);

    // The same count saved again replaces its row.
    store.save(at(100));
    assertThat(counts(server, db, "did:key:a")).containsExactly(20L, 100L);
    assertThat(store.describe())
        .contains(location.toString())
        .contains("mesh_journal_snapshot")
        .contains("did:key:a");
  }

  /**
   * Rows edited behind the store's back (a tampering sweep). The {@code count} column only orders
   * the rows: what a snapshot covers is its own signed position, which the steward checks against
   * the journal at start (an altered body fails its signature there, see mesh-cli's
   * ServePostgresSnapshotTest). So a row relabelled is returned byte for byte under its new label,
   * and the latest row deleted leaves the one before it as the latest, as removing the latest file
   * does in a file store: the steward then replays from that one's position.
   */
  @Test
  void tamperedRows_returnTheirBytesUnchanged_theSignedPositionStandsForWhatTheyCover()
      throws Exception {
    PostgresTestServer server = PostgresTestServer.shared();
    String db = server.newDatabase();
    PostgresSnapshotStore store =
        PostgresSnapshotStore.of(PostgresLocation.parse(server.url(db)), "did:key:t");
    store.save(at(20));
    store.save(at(30));
    sql(server, db, "DELETE FROM mesh_journal_snapshot WHERE journal = 'did:key:t' AND count = 30");
    assertThat(store.latest()).hasValueSatisfying(b -> assertThat(b).isEqualTo(at(20).encoded()));
    sql(server, db, "UPDATE mesh_journal_snapshot SET count = 99 WHERE journal = 'did:key:t'");
    byte[] relabelled = store.latest().orElseThrow();
    assertThat(relabelled).isEqualTo(at(20).encoded());
    assertThat(Snapshot.open(relabelled, Jcp.identity(STEWARD)).position().count()).isEqualTo(20);
    sql(server, db, "DELETE FROM mesh_journal_snapshot WHERE journal = 'did:key:t'");
    assertThat(store.latest()).isEmpty();
  }

  private static void sql(PostgresTestServer server, String db, String statement) throws Exception {
    try (Connection c = server.connect(db);
        Statement s = c.createStatement()) {
      s.execute(statement);
    }
  }

  @Test
  void aDatabaseThatCannotBeReached_isAnIoRefusal_namingTheStore() {
    PostgresSnapshotStore store =
        PostgresSnapshotStore.of(
            PostgresLocation.parse("postgresql://127.0.0.1:1/none?connectTimeout=1"), "did:key:a");
    assertThatThrownBy(store::latest)
        .isInstanceOfSatisfying(
            SnapshotException.class,
            e -> assertThat(e.reason()).isEqualTo(SnapshotException.Reason.IO))
        .hasMessageContaining("postgresql://127.0.0.1:1/none");
    assertThatThrownBy(() -> store.save(at(1)))
        .isInstanceOfSatisfying(
            SnapshotException.class,
            e -> assertThat(e.reason()).isEqualTo(SnapshotException.Reason.IO))
        .hasMessageContaining("cannot write the snapshot of 1 records");
  }

  @Test
  void aBlankJournalName_isRefused() {
    PostgresLocation location = PostgresLocation.parse("postgresql://127.0.0.1/x");
    assertThatThrownBy(() -> PostgresSnapshotStore.of(location, " "))
        .isInstanceOf(IllegalArgumentException.class);
  }

  /**
   * A snapshot larger than the server can send back (512 MiB less 64 KiB, sent as hex text; made
   * small here) was stored and became the latest row, failing every read after it: refused {@code
   * TOO_LARGE} before anything is written, the one before kept, and the store says its limit, so a
   * steward stops trying (SPEC.md §60.8, "Size").
   */
  @Test
  void aSaveLargerThanTheServerSendsBack_isRefusedTooLarge_andTheLatestStaysTheOneBefore()
      throws Exception {
    PostgresTestServer server = PostgresTestServer.shared();
    String db = server.newDatabase();
    PostgresLocation location = PostgresLocation.parse(server.url(db));
    assertThat(PostgresSnapshotStore.of(location, "did:key:c").maxBytes())
        .isEqualTo(PostgresSnapshotStore.MAX_BYTES)
        .isEqualTo(536_805_376L);
    int fits = at(10).encoded().length;
    PostgresSnapshotStore capped = PostgresSnapshotStore.of(location, "did:key:c", fits);
    assertThat(capped.maxBytes()).isEqualTo(fits);
    capped.save(at(10));
    Snapshot larger = at(10_000_000_000L); // its count takes 8 more bytes
    assertThat(larger.encodedLength()).isEqualTo(larger.encoded().length).isGreaterThan(fits);
    SnapshotException refused =
        catchThrowableOfType(SnapshotException.class, () -> capped.save(larger));
    assertThat(refused.reason()).isEqualTo(SnapshotException.Reason.TOO_LARGE);
    assertThat(refused)
        .hasMessageContaining("record 10000000000")
        .hasMessageContaining(larger.encodedLength() + " bytes, more than the " + fits);
    assertThat(counts(server, db, "did:key:c")).containsExactly(10L);
    assertThat(capped.latest()).hasValueSatisfying(b -> assertThat(b).isEqualTo(at(10).encoded()));
  }

  /**
   * A latest row larger than the store reads (one an older version saved) is refused {@code
   * TOO_LARGE} naming it, not {@code IO}: a steward then replays its journal whole instead of
   * refusing to start.
   */
  @Test
  void aLatestRowLargerThanTheStoreReads_isRefusedTooLarge_namingIt() throws Exception {
    PostgresTestServer server = PostgresTestServer.shared();
    String db = server.newDatabase();
    PostgresLocation location = PostgresLocation.parse(server.url(db));
    PostgresSnapshotStore.of(location, "did:key:d").save(at(10_000_000_000L));
    PostgresSnapshotStore capped =
        PostgresSnapshotStore.of(location, "did:key:d", at(10).encoded().length);
    assertThatThrownBy(capped::latest)
        .isInstanceOfSatisfying(
            SnapshotException.class,
            e -> {
              assertThat(e.reason()).isEqualTo(SnapshotException.Reason.TOO_LARGE);
              assertThat(e.getMessage()).contains("did:key:d").contains("count 10000000000");
            });
  }

  /**
   * Regression: the store had no header reader, so a steward whose latest row is {@code TOO_LARGE}
   * replayed its journal unchecked against it (SPEC.md §60.8, "Size"). The header is now read a
   * slice at a time from the row, whatever its size, and is the one the snapshot itself gives.
   */
  @Test
  void aLatestRowTooLargeToRead_stillGivesItsHeader_readBySlices() throws Exception {
    PostgresTestServer server = PostgresTestServer.shared();
    String db = server.newDatabase();
    PostgresLocation location = PostgresLocation.parse(server.url(db));
    PostgresSnapshotStore store = PostgresSnapshotStore.of(location, "did:key:h");
    assertThat(store.latestHeader()).as("no table yet").isEmpty();
    store.save(at(3));
    Snapshot latest = at(10_000_000_000L);
    store.save(latest);
    PostgresSnapshotStore capped =
        PostgresSnapshotStore.of(location, "did:key:h", at(10).encoded().length);
    assertThatThrownBy(capped::latest)
        .isInstanceOfSatisfying(
            SnapshotException.class,
            e -> assertThat(e.reason()).isEqualTo(SnapshotException.Reason.TOO_LARGE));
    assertThat(capped.latestHeader()).contains(latest.header());
    assertThat(store.latestHeader()).contains(latest.header());
    assertThat(PostgresSnapshotStore.of(location, "did:key:none").latestHeader()).isEmpty();

    // A row that is no snapshot has no header: MALFORMED, not an empty answer.
    sql(
        server,
        db,
        "UPDATE mesh_journal_snapshot SET snapshot = '\\x8201' WHERE journal = 'did:key:h'");
    assertThatThrownBy(capped::latestHeader)
        .isInstanceOfSatisfying(
            SnapshotException.class,
            e -> assertThat(e.reason()).isEqualTo(SnapshotException.Reason.MALFORMED));
  }
}
