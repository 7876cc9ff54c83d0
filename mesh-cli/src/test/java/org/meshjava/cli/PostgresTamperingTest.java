package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.meshjava.cli.MeshCommandTest.mesh;
import static org.meshjava.cli.PostgresServes.grant;
import static org.meshjava.cli.PostgresServes.payload;
import static org.meshjava.cli.PostgresServes.request;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Instant;
import java.time.InstantSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.meshjava.cli.MeshCommandTest.Run;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.jcp.GrantChain;
import org.meshjava.jcp.Jcp;
import org.meshjava.journal.JournalException;
import org.meshjava.journal.SnapshotException;
import org.meshjava.journal.postgres.PostgresJournal;
import org.meshjava.journal.postgres.PostgresLocation;
import org.meshjava.journal.postgres.PostgresSnapshotStore;
import org.meshjava.steward.Steward;
import org.meshjava.steward.StewardStartException;
import org.meshjava.testpg.PostgresTestServer;

/**
 * A tampering round on a PostgreSQL journal's rows with its steward stopped, as the file journal's
 * (SPEC.md §60.3, §60.7, §60.8): each edit is refused both by a starting steward and by {@code mesh
 * journal verify}, with a typed reason, or is one the SPEC recovers from. Regression: verify read
 * no snapshot row, so a journal cut behind its latest snapshot row, or that row altered, passed
 * verify while its steward refused to start on it.
 */
class PostgresTamperingTest {
  private final SigningKey stewardKey = SigningKey.generate();
  private final SigningKey caller = SigningKey.generate();
  private final Instant now = Instant.ofEpochSecond(Instant.now().getEpochSecond());
  private final String name = Jcp.identity(stewardKey).value();
  private final PostgresTestServer server = PostgresTestServer.shared();
  private final String db = server.newDatabase();
  // A session closed by one steward ends on the server a moment later: the next one waits for it.
  private final PostgresLocation location =
      PostgresLocation.parse(server.url(db) + "?lock_wait_ms=20000");

  /**
   * Serves {@code n} granted requests as the steward of {@code key} into the database, with a
   * snapshot after the first and one at the close (covering every record); returns the records.
   */
  private long history(SigningKey key, int n) throws Exception {
    GrantChain chain = grant(caller, key, now, 3600);
    String journal = Jcp.identity(key).value();
    try (Steward s =
        PostgresServes.steward(
            key,
            InstantSource.fixed(now),
            PostgresJournal.open(location, journal),
            PostgresSnapshotStore.of(location, journal),
            true)) {
      for (int i = 0; i < n; i++) {
        ServeRequest req = request(journal + " " + i);
        s.serve(req, payload(req), Jcp.present(caller, chain, req));
        if (i == 0) {
          s.snapshot();
        }
      }
    }
    try (PostgresJournal j = PostgresJournal.open(location, journal)) {
      return j.position().count();
    }
  }

  private void sql(String statement, Object... args) throws Exception {
    try (Connection c = server.connect(db);
        PreparedStatement ps = c.prepareStatement(statement)) {
      for (int i = 0; i < args.length; i++) {
        ps.setObject(i + 1, args[i]);
      }
      ps.execute();
    }
  }

  private long snapshotCount(int newest) throws Exception {
    try (Connection c = server.connect(db);
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT count FROM mesh_journal_snapshot WHERE journal = ?"
                    + " ORDER BY count DESC OFFSET ? LIMIT 1")) {
      ps.setString(1, name);
      ps.setInt(2, newest);
      try (ResultSet rs = ps.executeQuery()) {
        assertThat(rs.next()).isTrue();
        return rs.getLong(1);
      }
    }
  }

  /** What a start of the steward on the database throws, or null when it starts. */
  private Throwable start() {
    return catchThrowable(
        () ->
            PostgresServes.steward(
                    stewardKey,
                    InstantSource.fixed(now),
                    PostgresJournal.open(location, name),
                    PostgresSnapshotStore.of(location, name),
                    false)
                .close());
  }

  private Run verify() {
    return mesh("journal", "verify", server.url(db), "--steward", name);
  }

  private void refusedAtOpen(JournalException.Reason reason, String verifySays) {
    assertThat(start())
        .isInstanceOfSatisfying(
            JournalException.class, e -> assertThat(e.reason()).isEqualTo(reason));
    Run r = verify();
    assertThat(r.code()).as(r.out()).isNotZero();
    assertThat(r.err()).contains(verifySays);
  }

  private void refusedBySnapshot(SnapshotException.Reason reason, String verifySays) {
    assertThat(start())
        .isInstanceOfSatisfying(
            StewardStartException.class, e -> assertThat(e.snapshotRefusal()).contains(reason));
    Run r = verify();
    assertThat(r.code()).as(r.out()).isNotZero();
    assertThat(r.err()).contains(verifySays);
  }

  private void recovered() {
    assertThat(start()).isNull();
    Run r = verify();
    assertThat(r.code()).as(r.err()).isZero();
  }

  @Test
  @Timeout(120)
  void aByteEditedInAMiddleRow_isRefusedCorrupt() throws Exception {
    history(stewardKey, 3);
    sql(
        "UPDATE mesh_journal_record SET line = overlay(line PLACING '\\x20'::bytea FROM 3)"
            + " WHERE journal = ? AND seq = 2",
        name);
    refusedAtOpen(JournalException.Reason.CORRUPT, "record 2");
  }

  @Test
  @Timeout(120)
  void aMiddleRowDeleted_isRefusedCorrupt_namingTheGap() throws Exception {
    history(stewardKey, 3);
    sql("DELETE FROM mesh_journal_record WHERE journal = ? AND seq = 2", name);
    refusedAtOpen(JournalException.Reason.CORRUPT, "2");
  }

  @Test
  @Timeout(120)
  void twoRowsSeqSwapped_isRefusedCorrupt() throws Exception {
    history(stewardKey, 3);
    sql("UPDATE mesh_journal_record SET seq = 1000000 WHERE journal = ? AND seq = 1", name);
    sql("UPDATE mesh_journal_record SET seq = 1 WHERE journal = ? AND seq = 2", name);
    sql("UPDATE mesh_journal_record SET seq = 2 WHERE journal = ? AND seq = 1000000", name);
    refusedAtOpen(JournalException.Reason.CORRUPT, "record 1");
  }

  @Test
  @Timeout(120)
  void aRowCopiedFromAnotherStewardsJournal_appended_isRefusedCorrupt() throws Exception {
    long end = history(stewardKey, 3);
    SigningKey other = SigningKey.generate();
    assertThat(history(other, 5)).isGreaterThan(end);
    sql(
        "INSERT INTO mesh_journal_record (journal, seq, line) SELECT ?, seq, line"
            + " FROM mesh_journal_record WHERE journal = ? AND seq = ?",
        name,
        Jcp.identity(other).value(),
        end);
    refusedAtOpen(JournalException.Reason.CORRUPT, "record " + end);
  }

  @Test
  @Timeout(120)
  void theLastRowRenamedToAnotherJournal_isRefusedAsShorterThanItsSnapshot() throws Exception {
    long end = history(stewardKey, 3);
    String elsewhere = Jcp.identity(SigningKey.generate()).value();
    sql(
        "UPDATE mesh_journal_record SET journal = ? WHERE journal = ? AND seq = ?",
        elsewhere,
        name,
        end - 1);
    refusedBySnapshot(SnapshotException.Reason.AHEAD_OF_JOURNAL, "(AHEAD_OF_JOURNAL");
    // The journal it landed in starts at that record: refused for the records before it.
    Run r = mesh("journal", "verify", server.url(db), "--steward", elsewhere);
    assertThat(r.code()).isNotZero();
  }

  @Test
  @Timeout(120)
  void aMiddleRowRenamedToAnotherJournal_isRefusedCorrupt() throws Exception {
    history(stewardKey, 3);
    sql(
        "UPDATE mesh_journal_record SET journal = ? WHERE journal = ? AND seq = 2",
        Jcp.identity(SigningKey.generate()).value(),
        name);
    refusedAtOpen(JournalException.Reason.CORRUPT, "2");
  }

  @Test
  @Timeout(120)
  void theNewestSnapshotRowEdited_isRefusedByItsSignature() throws Exception {
    history(stewardKey, 3);
    // A byte near the end of the body, inside its signed digest's reach.
    sql(
        "UPDATE mesh_journal_snapshot SET snapshot = overlay(snapshot PLACING"
            + " decode(lpad(to_hex((get_byte(snapshot, length(snapshot) - 70) + 1) % 256), 2,"
            + " '0'), 'hex') FROM length(snapshot) - 69) WHERE journal = ? AND count = ?",
        name, snapshotCount(0));
    Throwable t = start();
    assertThat(t)
        .isInstanceOfSatisfying(
            StewardStartException.class, e -> assertThat(e.snapshotRefusal()).isPresent());
    Run r = verify();
    assertThat(r.code()).as(r.out()).isNotZero();
    assertThat(r.err()).contains("the latest snapshot is refused");
  }

  @Test
  @Timeout(120)
  void theNewestSnapshotRowReplacedByTheOlder_startsFromTheOlder() throws Exception {
    history(stewardKey, 3);
    sql(
        "UPDATE mesh_journal_snapshot SET snapshot = (SELECT snapshot FROM mesh_journal_snapshot"
            + " WHERE journal = ? AND count = ?) WHERE journal = ? AND count = ?",
        name,
        snapshotCount(1),
        name,
        snapshotCount(0));
    recovered();
  }

  @Test
  @Timeout(120)
  void theOlderSnapshotRowEdited_isNeverRead() throws Exception {
    history(stewardKey, 3);
    sql(
        "UPDATE mesh_journal_snapshot SET snapshot = '\\x00' WHERE journal = ? AND count = ?",
        name,
        snapshotCount(1));
    recovered();
  }

  @Test
  @Timeout(120)
  void theSnapshotRowReplacedByAnotherStewards_isRefusedOtherSteward() throws Exception {
    history(stewardKey, 3);
    SigningKey other = SigningKey.generate();
    history(other, 3);
    sql(
        "UPDATE mesh_journal_snapshot SET snapshot = (SELECT snapshot FROM mesh_journal_snapshot"
            + " WHERE journal = ? ORDER BY count DESC LIMIT 1) WHERE journal = ? AND count = ?",
        Jcp.identity(other).value(),
        name,
        snapshotCount(0));
    assertThat(start())
        .isInstanceOfSatisfying(
            StewardStartException.class,
            e -> assertThat(e.snapshotRefusal()).contains(SnapshotException.Reason.OTHER_STEWARD));
    Run r = verify();
    assertThat(r.code()).isNotZero();
    assertThat(r.err()).contains("(other_steward)");
  }

  @Test
  @Timeout(120)
  void theOwnerRowDeleted_orItsEpochLowered_opensAtTheNextEpoch() throws Exception {
    history(stewardKey, 3);
    sql("DELETE FROM mesh_journal_owner WHERE journal = ?", name);
    recovered();
    try (PostgresJournal j = PostgresJournal.open(location, name)) {
      assertThat(j.epoch()).isEqualTo(2); // the start above opened at 1
    }
    sql("UPDATE mesh_journal_owner SET epoch = 1 WHERE journal = ?", name);
    recovered();
  }
}
