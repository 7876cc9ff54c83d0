package org.meshjava.journal.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.core.ContentId;
import org.meshjava.core.Energy;
import org.meshjava.core.Fidelity;
import org.meshjava.core.ServeBounds;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.jcp.GrantChain;
import org.meshjava.jcp.Jcp;
import org.meshjava.jcp.Presentation;
import org.meshjava.jcp.PresentationNonce;
import org.meshjava.journal.FileJournal;
import org.meshjava.journal.JournalEntry;
import org.meshjava.journal.JournalException;
import org.meshjava.journal.JournalPosition;
import org.meshjava.journal.JournalRecord;
import org.meshjava.journal.internal.JournalFile;
import org.meshjava.testpg.PostgresTestServer;

/** The PostgreSQL journal against a real server: records, locking, fencing, group commit. */
class PostgresJournalTest {
  static final SigningKey CALLER = SigningKey.generate();
  static final GrantChain CHAIN = chain();

  static PostgresTestServer server;
  static String database;

  /** The journal's tables in {@code public}, where a URL naming no schema keeps them. */
  static final JournalTables PUBLIC = new JournalTables("public");

  /**
   * The lease of the cases whose session sits idle in a transaction for longer than one: work of a
   * third more than the lease outlasts it, as the three seconds of the lease's own heartbeat period
   * did for four of work; a short lease keeps those cases to a few seconds.
   */
  static final Duration SHORT_LEASE = Duration.ofMillis(1_500);

  @TempDir Path dir;

  @BeforeAll
  static void startServer() {
    server = PostgresTestServer.shared();
    database = server.newDatabase();
  }

  static PostgresLocation location() {
    return PostgresLocation.parse(server.url(database));
  }

  static String newName() {
    return "did:key:test-" + UUID.randomUUID();
  }

  static GrantChain chain() {
    try {
      Instant t = Instant.parse("2026-11-29T00:00:00Z");
      SigningKey issuer = SigningKey.generate();
      var root = Jcp.issueRoot(issuer, Jcp.identity(CALLER), 1_000_000, t, t.plusSeconds(60));
      return Jcp.delegate(CALLER, root, Jcp.identity(SigningKey.generate()), 1_000);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  static JournalEntry authorised(int i) {
    return authorised(CHAIN, i, Instant.ofEpochMilli(1_700_000_000_000L + i));
  }

  static JournalEntry authorised(GrantChain chain, int i, Instant decidedAt) {
    try {
      var req =
          ServeRequest.generation(
              ContentId.ofBytes(new byte[] {(byte) i}), 3, new ServeBounds(4, Fidelity.F1, 100));
      byte[] nonce = new byte[16];
      nonce[0] = (byte) i;
      nonce[1] = (byte) (i >> 8);
      return new JournalEntry.Authorised(
          Presentation.sign(CALLER, chain, req.id(), PresentationNonce.of(nonce)),
          req,
          Optional.empty(),
          "backend-" + i,
          decidedAt);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  static List<JournalEntry> history() {
    return List.of(
        authorised(0),
        new JournalEntry.Debited(1, Energy.estimated(500), 500, Optional.of("caveat-unsatisfied")),
        new JournalEntry.Sealed(0, ContentId.ofBytes(new byte[] {0})),
        authorised(1));
  }

  static List<byte[]> rows(String name) throws Exception {
    try (Connection c = server.connect(database);
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT line FROM mesh_journal_record WHERE journal = ? ORDER BY seq")) {
      ps.setString(1, name);
      List<byte[]> out = new ArrayList<>();
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.add(rs.getBytes(1));
        }
      }
      return out;
    }
  }

  static void sql(String statement) throws Exception {
    try (Connection c = server.connect(database);
        Statement s = c.createStatement()) {
      s.execute(statement);
    }
  }

  /** The grant chains recorded before record {@code k}, as a snapshot at {@code k} carries them. */
  static Map<ContentId, GrantChain> chainsBefore(List<JournalRecord> all, int k) {
    Map<ContentId, GrantChain> chains = new HashMap<>();
    for (JournalRecord r : all.subList(0, k)) {
      if (r.entry() instanceof JournalEntry.Chain c) {
        chains.put(c.id(), c.chain());
      }
    }
    return chains;
  }

  @Test
  void position_andRead_matchTheFileJournal_andReachRecordsCommittedSinceOpening()
      throws Exception {
    String name = newName();
    Path file = dir.resolve("position.journal");
    try (PostgresJournal pg = PostgresJournal.open(location(), name);
        FileJournal fj = FileJournal.open(file)) {
      assertThat(pg.position().samePlace(JournalPosition.GENESIS)).isTrue();
      for (JournalEntry e : history()) {
        pg.append(e);
        fj.append(e);
        assertThat(pg.position().samePlace(fj.position()))
            .as("%s vs the file's %s", pg.position(), fj.position())
            .isTrue();
      }
    }
    try (PostgresJournal pg = PostgresJournal.open(location(), name)) {
      JournalPosition opened = pg.position();
      assertThat(opened.count()).isEqualTo(5);
      pg.append(authorised(7));
      pg.append(new JournalEntry.Sealed(1, ContentId.ofBytes(new byte[] {1})));
      List<JournalRecord> all = new ArrayList<>();
      pg.read(JournalPosition.GENESIS, new HashMap<>(), all::add);
      int n = all.size();
      assertThat(n).isEqualTo(7).isEqualTo((int) pg.position().count());
      assertThat(all).isEqualTo(PostgresJournal.read(location(), name).recovered());
      // From every place: exactly the records after it, whether read at opening or committed since.
      for (int k = 0; k <= n; k++) {
        Optional<ContentId> hash =
            k == 0 ? Optional.empty() : k < n ? all.get(k).prev() : pg.position().lastHash();
        List<JournalRecord> tail = new ArrayList<>();
        pg.read(new JournalPosition(k, hash, -1), chainsBefore(all, k), tail::add);
        assertThat(tail).as("from %d", k).isEqualTo(all.subList(k, n));
      }
      // Another history at a place read at opening, at one committed since, and beyond the end.
      Optional<ContentId> other = Optional.of(ContentId.ofBytes(new byte[] {9}));
      for (long k : new long[] {2, 6, 7, 8}) {
        assertThatThrownBy(
                () -> pg.read(new JournalPosition(k, other, -1), new HashMap<>(), r -> {}))
            .as("at %d", k)
            .isInstanceOfSatisfying(
                JournalException.class,
                e -> assertThat(e.reason()).isEqualTo(JournalException.Reason.POSITION_MISMATCH));
      }
      // A committed row deleted behind the journal's back: the read says which is missing.
      sql("DELETE FROM mesh_journal_record WHERE journal = '" + name + "' AND seq = 6");
      assertThatThrownBy(() -> pg.read(opened, chainsBefore(all, 5), r -> {}))
          .isInstanceOfSatisfying(
              JournalException.class,
              e -> {
                assertThat(e.reason()).isEqualTo(JournalException.Reason.CORRUPT);
                assertThat(e.getMessage()).contains("6").contains("missing");
              });
    }
  }

  @Test
  void opening_keepsNoCopyOfTheRecords_aReadStreamsThemFromTheDatabase() throws Exception {
    String name = newName();
    try (PostgresJournal a = PostgresJournal.open(location(), name)) {
      for (JournalEntry e : history()) {
        a.append(e);
      }
    }
    try (PostgresJournal pg = PostgresJournal.open(location(), name)) {
      assertThat(pg.position().count()).isEqualTo(5);
      // Opening checked every row; a row deleted after it is missed by the next read, which
      // would not see the deletion if it served the records from a copy taken at opening.
      sql("DELETE FROM mesh_journal_record WHERE journal = '" + name + "' AND seq = 0");
      assertThatThrownBy(() -> pg.read(JournalPosition.GENESIS, new HashMap<>(), r -> {}))
          .isInstanceOfSatisfying(
              JournalException.class,
              e -> {
                assertThat(e.reason()).isEqualTo(JournalException.Reason.CORRUPT);
                assertThat(e.seq()).hasValue(0);
              });
    }
  }

  @Test
  void records_areTheFileJournalsBytes_andAreRecoveredAfterReopen() throws Exception {
    String name = newName();
    Path file = dir.resolve("same.journal");
    try (PostgresJournal pg = PostgresJournal.open(location(), name);
        FileJournal fj = FileJournal.open(file)) {
      for (JournalEntry e : history()) {
        assertThat(pg.append(e)).isEqualTo(fj.append(e));
      }
    }
    List<byte[]> fileLines = JournalFile.read(file).lines();
    List<byte[]> dbLines = rows(name);
    assertThat(dbLines).hasSize(5);
    for (int i = 0; i < fileLines.size(); i++) {
      assertThat(dbLines.get(i)).as("record " + i).isEqualTo(fileLines.get(i));
    }
    try (PostgresJournal pg = PostgresJournal.open(location(), name)) {
      assertThat(pg.recovered()).isEqualTo(JournalFile.read(file).records());
      assertThat(pg.epoch()).isEqualTo(2);
      // The chain continues where it stopped.
      JournalRecord next = pg.append(new JournalEntry.Sealed(1, ContentId.ofBytes(new byte[] {1})));
      assertThat(next.seq()).isEqualTo(5);
      assertThat(next.prev()).contains(ContentId.ofBytes(fileLines.getLast()));
    }
    assertThat(PostgresJournal.read(location(), name).recovered()).hasSize(6);
  }

  /** A grant of the caller's that expires {@code seconds} after {@code t}: one per call. */
  static GrantChain expiring(Instant t, int seconds) throws Exception {
    return Jcp.issueRoot(
        CALLER, Jcp.identity(SigningKey.generate()), 1_000, t, t.plusSeconds(seconds));
  }

  static List<String> hexRows(String name) throws Exception {
    return rows(name).stream().map(b -> ContentId.ofBytes(b).hex()).toList();
  }

  @Test
  void reopened_forgetsTheChainsItsHistoryLetExpire_andWritesAsIfItHadNeverClosed()
      throws Exception {
    // Opening read every row into a table that never forgot: every chain the history recorded,
    // one per call for callers that take a grant per call, held at once and kept until the next
    // write. A reopened journal must know what one that never closed knows, no more.
    Instant t = Instant.parse("2026-11-29T00:00:00Z");
    GrantChain shortLived = expiring(t, 10);
    List<JournalEntry> before =
        List.of(
            authorised(shortLived, 0, t.plusSeconds(1)),
            authorised(expiring(t, 100), 1, t.plusSeconds(20)));
    // Only a writer's view (the gate refuses an expired chain): a chain forgotten is recorded
    // again.
    JournalEntry after = authorised(shortLived, 2, t.plusSeconds(21));
    String kept = newName();
    String reopened = newName();
    try (PostgresJournal j = PostgresJournal.open(location(), kept)) {
      for (JournalEntry e : before) {
        j.append(e);
      }
      j.append(after);
    }
    try (PostgresJournal j = PostgresJournal.open(location(), reopened)) {
      for (JournalEntry e : before) {
        j.append(e);
      }
    }
    try (PostgresJournal j = PostgresJournal.open(location(), reopened)) {
      j.append(after);
    }

    assertThat(hexRows(reopened)).hasSize(6).isEqualTo(hexRows(kept));
  }

  @Test
  void secondSteward_onTheSameJournal_isRefused_untilTheFirstCloses() throws Exception {
    String name = newName();
    try (PostgresJournal a = PostgresJournal.open(location(), name)) {
      a.append(authorised(0));
      assertThatThrownBy(() -> PostgresJournal.open(location(), name))
          .isInstanceOfSatisfying(
              JournalException.class,
              e -> assertThat(e.reason()).isEqualTo(JournalException.Reason.LOCKED));
      // Another steward's journal in the same database is its own.
      try (PostgresJournal other = PostgresJournal.open(location(), newName())) {
        assertThat(other.recovered()).isEmpty();
      }
    }
    try (PostgresJournal b = PostgresJournal.open(location(), name)) {
      assertThat(b.recovered()).hasSize(2);
    }
  }

  @Test
  void aRefusedOpen_namesTheSessionHoldingTheLock_andHowToEndIt() throws Exception {
    String name = newName();
    try (PostgresJournal a = PostgresJournal.open(location(), name)) {
      long pid = PostgresJournalFaultTest.backendOf(name);
      // A session stuck in a COMMIT outlives its steward and holds the lock with no steward
      // running: the refusal has to say which session, so an operator can tell and end it.
      assertThatThrownBy(() -> PostgresJournal.open(location(), name))
          .isInstanceOfSatisfying(
              JournalException.class,
              e -> {
                assertThat(e.reason()).isEqualTo(JournalException.Reason.LOCKED);
                assertThat(e.getMessage())
                    .contains("pid " + pid + " from 127.0.0.1")
                    .contains("pg_terminate_backend(" + pid + ")");
              });
    }
  }

  @Test
  void unlock_releasesTheJournalsLock_whileTheSessionLives() throws Exception {
    String name = newName();
    try (Connection holder = server.connect(database);
        Connection other = server.connect(database)) {
      assertThat(JournalSchema.tryLock(holder, PUBLIC, name)).isTrue();
      assertThat(JournalSchema.tryLock(other, PUBLIC, name)).isFalse();
      JournalSchema.unlock(holder, PUBLIC, name);
      // The holder's session is still open: only the unlock can have released it.
      assertThat(JournalSchema.tryLock(other, PUBLIC, name)).isTrue();
    }
  }

  @Test
  void aCleanClose_releasesTheLock_soASuccessorOpensAtOnce() throws Exception {
    // Regression: close() only closed the connection, and the server drops a session's advisory
    // lock when it has ended the session, a moment later; a successor opening at once (lock wait
    // 0) was refused LOCKED now and then under load.
    String name = newName();
    for (int i = 0; i < 10; i++) {
      try (PostgresJournal j = PostgresJournal.open(location(), name)) {
        j.append(authorised(i));
      }
    }
    try (PostgresJournal last = PostgresJournal.open(location(), name)) {
      assertThat(last.epoch()).isEqualTo(11);
    }
  }

  @Test
  void lockWait_opensOnceTheHolderCloses() throws Exception {
    String name = newName();
    PostgresJournal a = PostgresJournal.open(location(), name);
    Thread opener = Thread.currentThread();
    // Closes once the opening was refused the lock and waits to try again (in PostgresJournal.lock,
    // between attempts), so that it can open only by waiting; not a fixed pause that a loaded
    // machine may outlast before the opening has tried at all.
    Thread closer =
        new Thread(
            () -> {
              long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
              try {
                while (!waitingForTheLock(opener) && System.nanoTime() < deadline) {
                  Thread.sleep(5);
                }
              } catch (InterruptedException ignored) {
                // close at once
              }
              a.close();
            });
    closer.start();
    try (PostgresJournal b =
        PostgresJournal.open(location().withLockWait(Duration.ofSeconds(20)), name)) {
      assertThat(b.epoch()).isEqualTo(2);
    }
    closer.join();
  }

  /** Whether {@code t} sleeps between two attempts at a journal's lock. */
  static boolean waitingForTheLock(Thread t) {
    return t.getState() == Thread.State.TIMED_WAITING
        && Arrays.stream(t.getStackTrace())
            .anyMatch(
                f ->
                    f.getClassName().equals(PostgresJournal.class.getName())
                        && f.getMethodName().equals("lock"));
  }

  @Test
  void lostSession_failsTheJournal_atItsNextWrite_andASuccessorOpens() throws Exception {
    String name = newName();
    try (PostgresJournal a = PostgresJournal.open(location(), name)) {
      a.append(authorised(0));
      // The database ends the steward's session (a network partition, an operator, a failover).
      sql(
          "SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory'"
              + " AND objid = "
              + (JournalSchema.lockKey("mesh-journal " + name) & 0xffffffffL));
      try (PostgresJournal b =
          PostgresJournal.open(location().withLockWait(Duration.ofSeconds(20)), name)) {
        assertThat(b.recovered()).hasSize(2);
        b.append(new JournalEntry.Sealed(0, ContentId.ofBytes(new byte[] {0})));
        assertThatThrownBy(() -> a.append(authorised(1)))
            .isInstanceOfSatisfying(
                JournalException.class,
                e ->
                    assertThat(e.reason())
                        .isIn(JournalException.Reason.FAILED, JournalException.Reason.FENCED));
        // Failed for good: no later append is taken either.
        assertThatThrownBy(() -> a.enqueue(authorised(2))).isInstanceOf(JournalException.class);
      }
    }
    assertThat(rows(name)).hasSize(3);
  }

  @Test
  void anAppendOnAnInterruptedVirtualThread_isCommitted_andTheSessionKeepsTheLock()
      throws Exception {
    // Socket I/O on an interrupted virtual thread closes the socket, and the session is what holds
    // the journal's advisory lock: a cancelled serve must not end it (SPEC.md 60.1).
    String name = newName();
    try (PostgresJournal a = PostgresJournal.open(location(), name)) {
      a.append(authorised(0));
      AtomicReference<Throwable> error = new AtomicReference<>();
      AtomicBoolean keptInterrupt = new AtomicBoolean();
      Thread t =
          Thread.ofVirtual()
              .start(
                  () -> {
                    Thread.currentThread().interrupt();
                    try {
                      a.append(new JournalEntry.Sealed(0, ContentId.ofBytes(new byte[] {0})));
                    } catch (Throwable e) {
                      error.set(e);
                    }
                    keptInterrupt.set(Thread.currentThread().isInterrupted());
                  });
      t.join(30_000);
      assertThat(error.get()).isNull();
      assertThat(keptInterrupt).isTrue();
      a.append(authorised(1));
      assertThatThrownBy(() -> PostgresJournal.open(location(), name))
          .isInstanceOfSatisfying(
              JournalException.class,
              e -> assertThat(e.reason()).isEqualTo(JournalException.Reason.LOCKED));
    }
    assertThat(rows(name)).hasSize(4);
  }

  @Test
  void raisedEpoch_fencesTheOldWriter_whoseWriteInsertsNothing() throws Exception {
    String name = newName();
    try (PostgresJournal a = PostgresJournal.open(location(), name)) {
      a.append(authorised(0));
      // A successor raised the epoch while this writer's session was still alive (the lock lost
      // some other way): the fence alone must stop it.
      sql("UPDATE mesh_journal_owner SET epoch = epoch + 1 WHERE journal = '" + name + "'");
      assertThatThrownBy(() -> a.append(authorised(1)))
          .isInstanceOfSatisfying(
              JournalException.class,
              e -> assertThat(e.reason()).isEqualTo(JournalException.Reason.FENCED));
      assertThatThrownBy(() -> a.append(authorised(2)))
          .isInstanceOfSatisfying(
              JournalException.class,
              e -> assertThat(e.reason()).isEqualTo(JournalException.Reason.FENCED));
    }
    assertThat(rows(name)).hasSize(2);
  }

  @Test
  void heartbeat_noticesAFenceWithoutAWrite() throws Exception {
    String name = newName();
    try (PostgresJournal a =
        PostgresJournal.open(location().withLease(Duration.ofSeconds(1)), name)) {
      sql("UPDATE mesh_journal_owner SET epoch = epoch + 1 WHERE journal = '" + name + "'");
      long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
      while (true) {
        try {
          a.enqueue(authorised(0));
        } catch (JournalException e) {
          assertThat(e.reason()).isEqualTo(JournalException.Reason.FENCED);
          break;
        }
        assertThat(System.nanoTime()).as("the heartbeat never saw the fence").isLessThan(deadline);
        Thread.sleep(100);
      }
    }
  }

  @Test
  void anOpeningWhoseReplayOutlastsTheLease_keepsItsSession_andOpens() throws Exception {
    String name = newName();
    PostgresLocation shortLease = location().withLease(SHORT_LEASE);
    int count = 1_100;
    PostgresJournal.importLines(shortLease, name, receiptLines(count));
    // Each record takes 2 ms to check: 2 s for the first fetch of 1 000 rows, more than the lease,
    // as a long journal on a slow or loaded machine takes; the session is idle in its transaction
    // meanwhile, and the second fetch comes after it.
    try (PostgresJournal b =
        PostgresJournal.open(
            shortLease,
            name,
            () -> {
              try {
                Thread.sleep(2);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            })) {
      assertThat(b.position().count()).isEqualTo(count);
      b.append(authorised(0));
    }
    assertThat(rows(name)).hasSize(count + 2);
  }

  @Test
  void anImportWhoseSourceOutlastsTheLease_keepsItsSession_andCommits() throws Exception {
    List<byte[]> lines = receiptLines(20);
    String name = newName();
    // A source that gives a line every 100 ms (a slow disk, a pipe): two seconds in all before
    // the first insert, more than the lease, with the session idle in its transaction.
    long written =
        PostgresJournal.importLines(
            location().withLease(SHORT_LEASE),
            name,
            sink -> {
              for (byte[] line : lines) {
                try {
                  Thread.sleep(100);
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                }
                sink.accept(line);
              }
            });
    assertThat(written).isEqualTo(20);
    assertThat(rows(name)).containsExactlyElementsOf(lines);
  }

  @Test
  void editedRow_refusesToOpen_namingTheRecordAfterIt() throws Exception {
    String name = newName();
    try (PostgresJournal a = PostgresJournal.open(location(), name)) {
      for (JournalEntry e : history()) {
        a.append(e);
      }
    }
    sql(
        "UPDATE mesh_journal_record SET line = convert_to(replace(convert_from(line, 'UTF8'),"
            + " '\"debited_uj\":500', '\"debited_uj\":5'), 'UTF8') WHERE journal = '"
            + name
            + "' AND seq = 2");
    assertThatThrownBy(() -> PostgresJournal.open(location(), name))
        .isInstanceOfSatisfying(
            JournalException.class,
            e -> {
              assertThat(e.reason()).isEqualTo(JournalException.Reason.CORRUPT);
              assertThat(e.seq()).hasValue(3);
            });
  }

  @Test
  void deletedRow_refusesToOpen_namingIt() throws Exception {
    String name = newName();
    try (PostgresJournal a = PostgresJournal.open(location(), name)) {
      for (JournalEntry e : history()) {
        a.append(e);
      }
    }
    sql("DELETE FROM mesh_journal_record WHERE journal = '" + name + "' AND seq = 1");
    assertThatThrownBy(() -> PostgresJournal.read(location(), name))
        .isInstanceOfSatisfying(
            JournalException.class,
            e -> {
              assertThat(e.reason()).isEqualTo(JournalException.Reason.CORRUPT);
              assertThat(e.seq()).hasValue(1);
            });
  }

  /** A journal of {@link #history()}, closed, then changed in the database by {@code tamper}. */
  static String tampered(String... tamper) throws Exception {
    String name = newName();
    try (PostgresJournal a = PostgresJournal.open(location(), name)) {
      for (JournalEntry e : history()) {
        a.append(e);
      }
    }
    for (String statement : tamper) {
      sql(statement.replace("$J", "'" + name + "'"));
    }
    return name;
  }

  static void assertOpenRefused(String name, long seq, String why) {
    assertThatThrownBy(() -> PostgresJournal.open(location(), name).close())
        .as(why)
        .isInstanceOfSatisfying(
            JournalException.class,
            e -> {
              assertThat(e.reason()).as(why).isEqualTo(JournalException.Reason.CORRUPT);
              assertThat(e.seq()).as(why + ": " + e.getMessage()).hasValue(seq);
            });
  }

  /**
   * Rows edited in the database behind the steward's back (a tampering sweep): each refuses the
   * opening as {@code CORRUPT}, naming the first record that cannot stand where it is.
   */
  @Test
  void tamperedRows_refuseToOpen_namingTheRecord() throws Exception {
    String row = "FROM mesh_journal_record WHERE journal = $J AND seq = ";
    assertOpenRefused(
        tampered(
            "UPDATE mesh_journal_record SET line = set_byte(line, 2, get_byte(line, 2) # 1)"
                + " WHERE journal = $J AND seq = 1"),
        1,
        "a byte flipped in a middle line");
    assertOpenRefused(
        tampered(
            "UPDATE mesh_journal_record SET line = set_byte(line, length(line) - 2,"
                + " get_byte(line, length(line) - 2) # 1) WHERE journal = $J AND seq = 4"),
        4,
        "a byte flipped in the last line");
    assertOpenRefused(tampered("DELETE " + row + "1"), 1, "a middle row deleted");
    assertOpenRefused(
        tampered("UPDATE mesh_journal_record SET seq = 10 WHERE journal = $J AND seq = 4"),
        4,
        "the last row moved to a later seq");
    assertOpenRefused(
        tampered(
            "UPDATE mesh_journal_record SET line = (SELECT line "
                + row
                + "1)"
                + " WHERE journal = $J AND seq = 2"),
        2,
        "a line copied over the next row");
    assertOpenRefused(
        tampered(
            "INSERT INTO mesh_journal_record (journal, seq, line) SELECT journal, 5, line "
                + row
                + "4"),
        5,
        "the last line repeated as one more row");
  }

  /**
   * The owner row holds only the fencing epoch, not the records: a row deleted opens at epoch 1
   * with every record; an epoch that cannot be raised is a typed refusal, not a SQL error.
   *
   * <p>Regression: the epoch at the largest {@code bigint} was refused as {@code IO} with the
   * server's words only ("ERROR: bigint out of range"), saying neither what was wrong nor what to
   * do. It is now {@code CORRUPT}, naming the journal, the table and the value, and the way out.
   */
  @Test
  void tamperedOwnerRow_deletedOpensWithEveryRecord_andOneAtTheLastEpochIsRefused()
      throws Exception {
    String deleted = tampered("DELETE FROM mesh_journal_owner WHERE journal = $J");
    try (PostgresJournal j = PostgresJournal.open(location(), deleted)) {
      assertThat(j.position().count()).isEqualTo(rows(deleted).size()).isEqualTo(5);
    }
    String last =
        tampered("UPDATE mesh_journal_owner SET epoch = 9223372036854775807 WHERE journal = $J");
    assertThatThrownBy(() -> PostgresJournal.open(location(), last).close())
        .isInstanceOfSatisfying(
            JournalException.class,
            e -> {
              assertThat(e.reason()).isEqualTo(JournalException.Reason.CORRUPT);
              assertThat(e.seq()).isEmpty();
              assertThat(e.getMessage())
                  .startsWith("cannot open journal " + last + " at " + location())
                  .contains("mesh_journal_owner", "epoch 9223372036854775807")
                  .contains("delete its row")
                  .doesNotContain("bigint out of range");
            });
    // Refused before anything is raised or read: the row is as it was, and the lock released.
    try (Connection c = server.connect(database)) {
      assertThat(JournalSchema.epoch(c, PUBLIC, last).epoch()).isEqualTo(Long.MAX_VALUE);
    }
    sql("UPDATE mesh_journal_owner SET epoch = 7 WHERE journal = '" + last + "'");
    try (PostgresJournal j = PostgresJournal.open(location(), last)) {
      assertThat(j.epoch()).isEqualTo(8);
      assertThat(j.position().count()).isEqualTo(5);
    }
  }

  @Test
  void concurrentAppends_formOneChain_andAllAreCommitted() throws Exception {
    String name = newName();
    int threads = 8;
    int each = 40;
    try (PostgresJournal j = PostgresJournal.open(location(), name)) {
      ExecutorService pool = Executors.newFixedThreadPool(threads);
      List<Future<JournalRecord>> done = new ArrayList<>();
      for (int i = 0; i < threads * each; i++) {
        int n = i;
        done.add(
            pool.submit(
                () ->
                    j.append(
                        new JournalEntry.Sealed(n, ContentId.ofBytes(new byte[] {(byte) n})))));
      }
      for (Future<JournalRecord> f : done) {
        f.get();
      }
      pool.shutdown();
    }
    // Reopening re-checks the chain; every acknowledged record is there.
    assertThat(PostgresJournal.read(location(), name).recovered()).hasSize(threads * each);
  }

  @Test
  void exportToAFile_andImportFromIt_keepEveryByte() throws Exception {
    String name = newName();
    Path file = dir.resolve("source.journal");
    try (FileJournal fj = FileJournal.open(file)) {
      for (JournalEntry e : history()) {
        fj.append(e);
      }
    }
    List<byte[]> lines = JournalFile.read(file).lines();
    assertThat(PostgresJournal.importLines(location(), name, lines)).isEqualTo(5);
    assertThat(rows(name)).usingRecursiveComparison().isEqualTo(lines);
    // Only into an empty journal.
    assertThatThrownBy(() -> PostgresJournal.importLines(location(), name, lines))
        .isInstanceOfSatisfying(
            JournalException.class,
            e -> assertThat(e.reason()).isEqualTo(JournalException.Reason.REPLAY_REFUSED));
    // A broken chain is refused before anything is written.
    List<byte[]> broken = new ArrayList<>(lines);
    broken.remove(2);
    String other = newName();
    assertThatThrownBy(() -> PostgresJournal.importLines(location(), other, broken))
        .isInstanceOfSatisfying(
            JournalException.class,
            e -> assertThat(e.reason()).isEqualTo(JournalException.Reason.CORRUPT));
    assertThat(rows(other)).isEmpty();
    assertThat(PostgresJournal.names(location())).contains(name).doesNotContain(other);
    assertThat(Files.size(file)).isPositive();
  }

  @Test
  void importLines_streamsInBatches_andABreakAfterSomeBatchesRollsEverythingBack()
      throws Exception {
    List<byte[]> lines = receiptLines(2_500);
    String name = newName();
    assertThat(
            PostgresJournal.importLines(
                location(),
                name,
                sink -> {
                  for (byte[] line : lines) {
                    sink.accept(line);
                  }
                }))
        .isEqualTo(2_500);
    assertThat(rows(name)).containsExactlyElementsOf(lines);
    List<byte[]> streamed = new ArrayList<>();
    PostgresJournal.readLines(location(), name, streamed::add);
    assertThat(streamed).containsExactlyElementsOf(lines);

    // Two batches of 1 000 are written before record 2 300 breaks the chain: all rolled back.
    List<byte[]> broken = new ArrayList<>(lines);
    broken.remove(2_300);
    String other = newName();
    assertThatThrownBy(() -> PostgresJournal.importLines(location(), other, broken))
        .isInstanceOfSatisfying(
            JournalException.class,
            e -> {
              assertThat(e.reason()).isEqualTo(JournalException.Reason.CORRUPT);
              assertThat(e.getMessage()).contains("record 2300");
            });
    assertThat(rows(other)).isEmpty();
    // The journal is left usable: a later import into it succeeds.
    assertThat(PostgresJournal.importLines(location(), other, lines)).isEqualTo(2_500);
  }

  /** {@code n} chained records of ungranted receipts, encoded as a steward writes them. */
  static List<byte[]> receiptLines(int n) throws JournalException {
    org.meshjava.journal.internal.JournalChain chain =
        org.meshjava.journal.internal.JournalChain.recover(List.of());
    List<byte[]> lines = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      ContentId id =
          ContentId.ofBytes(("envelope " + i).getBytes(java.nio.charset.StandardCharsets.UTF_8));
      chain.advance(new JournalEntry.Sealed(i, id)).forEach(e -> lines.add(e.line()));
    }
    return lines;
  }
}
