package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.core.Energy;
import org.meshjava.core.ServeRequest;
import org.meshjava.jcp.GrantChain;
import org.meshjava.jcp.LedgerState;
import org.meshjava.jcp.Presentation;
import org.meshjava.jcp.Revocation;
import org.meshjava.journal.FileJournal;
import org.meshjava.journal.FileSnapshotStore;
import org.meshjava.journal.ForwardingJournal;
import org.meshjava.journal.JournalEntry;
import org.meshjava.journal.JournalException;
import org.meshjava.journal.JournalPosition;
import org.meshjava.journal.JournalRecord;
import org.meshjava.journal.SnapshotException;
import org.meshjava.journal.SnapshotStore;
import org.meshjava.journal.Unresolved;
import org.meshjava.journal.internal.JournalFile;
import org.meshjava.receipt.ChainHead;
import org.meshjava.receipt.tlog.TreeHash;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Journal snapshots (§2.2, SPEC.md §60.8): a restart from any snapshot and the records after it
 * re-establishes exactly what a full replay does, and a snapshot that is not this steward's, was
 * altered, or does not match its journal refuses the start.
 */
class SnapshotRestartTest {
  private static final Logger LOG = LoggerFactory.getLogger(SnapshotRestartTest.class);

  final GrantFixture f = new GrantFixture();
  @TempDir Path dir;

  Path journal() {
    return dir.resolve("steward.journal");
  }

  Steward open(SnapshotStore store) throws Exception {
    return f.steward(FileJournal.open(journal())).snapshots(store).snapshotEvery(0).build();
  }

  /** What a restart re-establishes, to compare two recoveries. */
  record Recovered(
      LedgerState ledger,
      java.util.Map<org.meshjava.jcp.GrantId, java.time.Instant> revocations,
      ChainHead head,
      List<Unresolved> unresolved,
      Optional<String> suspended,
      TreeHash root) {
    static Recovered of(Steward s) {
      return new Recovered(
          s.spend().ledgerState(),
          s.spend().revocations(),
          s.head(),
          s.unresolved(),
          s.grantsSuspended(),
          s.logRoot());
    }
  }

  Recovered recoverFrom(SnapshotStore store) throws Exception {
    try (Steward s = open(store)) {
      return Recovered.of(s);
    }
  }

  Recovered recoverFully() throws Exception {
    try (Steward s = f.steward(FileJournal.open(journal())).build()) {
      return Recovered.of(s);
    }
  }

  @Test
  void randomisedWorkload_restartFromEverySnapshot_equalsFullReplay() throws Exception {
    long seed = Long.getLong("mesh.snapshot.seed", new Random().nextLong());
    LOG.info("snapshot workload seed {} (rerun with -Dmesh.snapshot.seed={})", seed, seed);
    Random rnd = new Random(seed);
    KeepingSnapshotStore store = new KeepingSnapshotStore();
    List<GrantChain> chains =
        List.of(f.chain(50_000_000), f.chain(300_000), f.chain(20_000_000), f.chain(9_000_000));
    GrantChain spare = chains.get(0); // never revoked: offline "crash" records use it
    List<ServeResult> sealed = new ArrayList<>();
    boolean revoked = false;
    boolean suspended = false;
    Presentation lastPresented = null;
    ServeRequest lastRequest = null;
    Steward s = open(store);
    try {
      for (int step = 0; step < 60; step++) {
        int op = rnd.nextInt(12);
        if (op <= 4) {
          GrantChain c = chains.get(rnd.nextInt(chains.size()));
          ServeRequest req =
              GrantFixture.request(
                  "serve " + step, 1 + rnd.nextInt(20), 20_000 + rnd.nextInt(90_000));
          Presentation p = f.present(c, req);
          try {
            sealed.add(s.serve(req, GrantFixture.payload(req), p));
            // Only a presentation that was served is spent: one denied while grants were
            // suspended may legitimately be served once an operator lifts the suspension.
            lastPresented = p;
            lastRequest = req;
          } catch (ServeException denied) {
            // budget exhausted, revoked or suspended: a denial, journalled as nothing
          }
        } else if (op == 5) {
          ServeRequest req = GrantFixture.request("ungranted " + step, 3, 10_000);
          sealed.add(s.serve(req, GrantFixture.payload(req)));
        } else if (op == 6 && lastPresented != null) {
          ServeRequest req = lastRequest;
          Presentation p = lastPresented;
          Steward current = s;
          assertThatThrownBy(() -> current.serve(req, GrantFixture.payload(req), p))
              .as("a spent presentation shown again (seed %s)", seed)
              .isInstanceOf(ServeException.class);
        } else if (op == 7) {
          s.snapshot();
        } else if (op == 8) {
          s.close();
          s = open(store);
        } else if (op == 9) {
          // A crash mid-serve, a suspension or its lifting, written while no steward runs.
          s.close();
          try (FileJournal j = FileJournal.open(journal())) {
            int kind = rnd.nextInt(3);
            ServeRequest req = GrantFixture.request("crashed " + step, 5, 40_000);
            Presentation p = f.present(spare, req);
            if (kind == 0) {
              j.append(
                  new JournalEntry.Authorised(p, req, Optional.empty(), "ref", GrantFixture.NOW));
            } else if (kind == 1) {
              JournalRecord a =
                  j.append(
                      new JournalEntry.Authorised(
                          p, req, Optional.empty(), "ref", GrantFixture.NOW));
              j.append(
                  new JournalEntry.Debited(
                      a.seq(), Energy.estimated(1234), 1234, Optional.empty()));
            } else if (!suspended && !sealed.isEmpty()) {
              ServeResult shown = sealed.get(rnd.nextInt(sealed.size()));
              j.append(new JournalEntry.Suspended(shown.receipt().sequence(), shown.envelope()));
              suspended = true;
            } else if (suspended) {
              j.append(new JournalEntry.Resumed("restored from backup (test)"));
              suspended = false;
            }
          }
          s = open(store);
        } else if (op == 10 && !revoked) {
          s.revoke(Revocation.sign(f.org, chains.get(3), GrantFixture.NOW.minusSeconds(5)));
          revoked = true;
        } else if (op == 11) {
          // Concurrent serves while snapshots are written in the background.
          s.close();
          s = f.steward(FileJournal.open(journal())).snapshots(store).snapshotEvery(3).build();
          Steward current = s;
          ExecutorService pool = Executors.newFixedThreadPool(3);
          try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < 6; t++) {
              int n = t;
              int at = step;
              done.add(
                  pool.submit(
                      () -> {
                        ServeRequest req =
                            GrantFixture.request("parallel " + at + "/" + n, 4, 30_000);
                        try {
                          return current.serve(
                              req, GrantFixture.payload(req), f.present(spare, req));
                        } catch (GrantsSuspendedException e) {
                          return null;
                        }
                      }));
            }
            for (Future<?> d : done) {
              d.get();
            }
          } finally {
            pool.shutdown();
          }
        }
      }
    } finally {
      s.close();
    }
    Recovered full = recoverFully();
    assertThat(store.saved).as("snapshots taken (seed %s)", seed).isNotEmpty();
    for (byte[] snap : store.saved) {
      assertThat(recoverFrom(new KeepingSnapshotStore(snap)))
          .as("restart from a snapshot (seed %s)", seed)
          .isEqualTo(full);
    }
  }

  @Test
  void atEveryRecordBoundary_snapshotThenTail_equalsFullReplay() throws Exception {
    GrantChain chain = f.chain(5_000_000);
    try (Steward s = f.steward(FileJournal.open(journal())).build()) {
      for (int i = 0; i < 4; i++) {
        ServeRequest req = GrantFixture.request("boundary " + i, 4, 30_000);
        s.serve(req, GrantFixture.payload(req), f.present(chain, req));
        ServeRequest free = GrantFixture.request("ungranted " + i, 2, 10_000);
        s.serve(free, GrantFixture.payload(free));
      }
      s.checkpoint();
    }
    try (FileJournal j = FileJournal.open(journal())) {
      ServeRequest req = GrantFixture.request("in flight", 4, 40_000);
      j.append(
          new JournalEntry.Authorised(
              f.present(chain, req), req, Optional.empty(), "ref", GrantFixture.NOW));
    }
    List<JournalRecord> records =
        org.meshjava.journal.internal.JournalFile.read(journal()).records();
    byte[] full = replayedState(0, records, null);
    for (int k = 0; k <= records.size(); k++) {
      assertThat(replayedState(k, records, records.subList(0, k)))
          .as("snapshot after %d of %d records, then the rest", k, records.size())
          .isEqualTo(full);
    }
  }

  /**
   * Replays {@code prefix} (if given), snapshots, signs, encodes, opens and restores the snapshot,
   * replays the records from {@code k} on, and returns the final state's canonical encoding.
   */
  private byte[] replayedState(int k, List<JournalRecord> all, List<JournalRecord> prefix)
      throws Exception {
    org.meshjava.journal.internal.ReplayState state =
        org.meshjava.journal.internal.ReplayState.fresh(
            org.meshjava.jcp.Gate.create(
                f.steward,
                org.meshjava.jcp.SpendLedger.inMemory(),
                org.meshjava.jcp.Revocations.none()));
    if (prefix != null) {
      state.applyAll(prefix);
      org.meshjava.journal.Snapshot snap =
          org.meshjava.journal.Snapshot.open(
              org.meshjava.journal.Snapshot.sign(f.stewardKey, state.capture(-1)).encoded(),
              f.steward);
      state =
          org.meshjava.journal.internal.ReplayState.restore(
              snap.state(), snap.gate(org.meshjava.jcp.Revocations.none()));
    }
    state.applyAll(all.subList(k, all.size()));
    return org.meshjava.journal.Snapshot.sign(f.stewardKey, state.capture(-1)).encoded();
  }

  @Test
  void restartFromASnapshot_readsOnlyTheRecordsAfterIt_andRetainsNone() throws Exception {
    GrantChain chain = f.chain(100_000_000);
    KeepingSnapshotStore store = new KeepingSnapshotStore();
    JournalPosition at;
    try (Steward s = open(store)) {
      for (int i = 0; i < 20; i++) {
        ServeRequest req = GrantFixture.request("before " + i, 4, 30_000);
        s.serve(req, GrantFixture.payload(req), f.present(chain, req));
      }
      at = s.snapshot();
      for (int i = 0; i < 3; i++) {
        ServeRequest req = GrantFixture.request("after " + i, 4, 30_000);
        s.serve(req, GrantFixture.payload(req), f.present(chain, req));
      }
    }
    byte[] mid = store.saved.getFirst();
    long total;
    try (FileJournal j = FileJournal.open(journal())) {
      total = j.position().count();
    }
    RecordingJournal watched = new RecordingJournal(FileJournal.open(journal()));
    try (Steward s =
        f.steward(watched)
            .snapshots(new KeepingSnapshotStore(mid))
            .snapshotEvery(0)
            .checkRecordsBeforeSnapshot(at.count() - 1)
            .build()) {
      assertThat(watched.deliveredCount()).isEqualTo(total - at.count());
      assertThat(s.head().nextSequence()).isEqualTo(23);
    }
    // Full replay: every record is read, and none is held once the steward is built.
    RecordingJournal all = new RecordingJournal(FileJournal.open(journal()));
    try (Steward s = f.steward(all).build()) {
      assertThat(all.deliveredCount()).isEqualTo((int) total);
      for (int i = 0; i < 10 && all.stillReachable() > 0; i++) {
        System.gc();
        Thread.sleep(20);
      }
      assertThat(all.stillReachable()).as("records still held after recovery").isZero();
      assertThat(s.head().nextSequence()).isEqualTo(23);
    }
  }

  @Test
  void cadence_writesSnapshotsInTheBackground_andOnClose() throws Exception {
    GrantChain chain = f.chain(100_000_000);
    Path snaps = dir.resolve("snaps");
    FileSnapshotStore store = new FileSnapshotStore(snaps);
    try (Steward s =
        f.steward(FileJournal.open(journal())).snapshots(store).snapshotEvery(6).build()) {
      for (int i = 0; i < 12; i++) {
        ServeRequest req = GrantFixture.request("cadence " + i, 4, 30_000);
        s.serve(req, GrantFixture.payload(req), f.present(chain, req));
      }
      long deadline = System.nanoTime() + 10_000_000_000L;
      while (store.latest().isEmpty() && System.nanoTime() < deadline) {
        Thread.sleep(20);
      }
      assertThat(store.latest()).as("a snapshot by count").isPresent();
    }
    long count;
    try (FileJournal j = FileJournal.open(journal())) {
      count = j.position().count();
    }
    try (var files = Files.list(snaps)) {
      assertThat(files.map(p -> p.getFileName().toString()))
          .as("the closing snapshot covers the whole journal")
          .contains(String.format("%020d.snapshot", count));
    }
  }

  /**
   * Regression: a snapshot store that could not be read (its folder a file) refused the start as if
   * it held a bad snapshot, with the advice to remove "the latest snapshot", which there named the
   * operator's own file.
   */
  @Test
  void aSnapshotFolderThatIsAFile_refusesTheStart_withoutSayingToRemoveASnapshot()
      throws Exception {
    Path file = Files.writeString(dir.resolve("not-a-folder"), "the operator's");

    assertThatThrownBy(() -> open(new FileSnapshotStore(file)))
        .isInstanceOf(StewardStartException.class)
        .hasMessageContaining("its snapshots in " + file + " cannot be read")
        .hasMessageContaining("it is not a folder")
        .hasMessageNotContaining("remove it");
  }

  /**
   * Regression: an interval too long to count in milliseconds ({@code
   * mesh.snapshots.every-s=9223372036854775807} in the Spring starter) failed the build with {@code
   * ArithmeticException: long overflow}, naming nothing, after the journal was opened and without
   * closing it, so its lock stayed held for the rest of the process.
   */
  @Test
  void anIntervalTooLongToCount_neverComes_andTheStewardStarts() throws Exception {
    FileSnapshotStore store = new FileSnapshotStore(dir.resolve("snaps"));
    try (Steward s =
        f.steward(FileJournal.open(journal()))
            .snapshots(store)
            .snapshotInterval(Duration.ofSeconds(Long.MAX_VALUE))
            .build()) {
      assertThat(s.readiness().ready()).isTrue();
    }
    try (Steward again = open(store)) {
      assertThat(again.readiness().ready()).isTrue();
    }
  }

  /**
   * Regression: a start from a snapshot read nothing before it, so a record edited there (say,
   * after a stop, which writes a snapshot covering the whole journal) went unseen and the steward
   * served from a journal whose records no longer form one chain (§2.2). A snapshot covering few
   * enough records now has them read first; one covering more than the builder says does not (the
   * start then costs the state alone), and neither does a check set to 0.
   */
  @Test
  void recordEditedBeforeTheSnapshot_refusesTheStart_whenTheSnapshotCoversFewEnough()
      throws Exception {
    KeepingSnapshotStore store = new KeepingSnapshotStore();
    byte[] snap = servedWithSnapshot(store, 4);
    long covered = org.meshjava.journal.Snapshot.open(snap, f.steward).position().count();
    try (Steward s = open(new KeepingSnapshotStore(snap))) {
      assertThat(s.head().nextSequence()).as("an untouched journal starts").isEqualTo(4);
    }
    editPrevOfLine(2);
    assertThatThrownBy(() -> open(new KeepingSnapshotStore(snap)).close())
        .isInstanceOfSatisfying(
            StewardStartException.class,
            e -> assertThat(e.getMessage()).contains("record 2").contains("cannot be replayed"));
    try (Steward s =
        f.steward(FileJournal.open(journal()))
            .snapshots(new KeepingSnapshotStore(snap))
            .snapshotEvery(0)
            .checkRecordsBeforeSnapshot(covered - 1)
            .build()) {
      assertThat(s.head().nextSequence()).as("beyond the check, the edit is not read").isEqualTo(4);
    }
  }

  /**
   * A journal archived up to its snapshot, its segments then removed (SPEC.md §60.8): the read of
   * the covered records from the first meets {@code ARCHIVED}, and the start goes on to check only
   * the links the live file still holds, which are whole here, so it starts. Refusing {@code
   * ARCHIVED} instead would keep every archived journal without its segments from starting.
   */
  @Test
  void archivedJournalWithoutItsSegments_startsFromTheSnapshotCoveringThem() throws Exception {
    byte[] snap = servedWithSnapshot(new KeepingSnapshotStore(), 4);
    archiveWithoutSegments(snap);
    try (Steward s = open(new KeepingSnapshotStore(snap))) {
      assertThat(s.head().nextSequence()).isEqualTo(4);
    }
  }

  /**
   * The same archived journal served on, so that the live file holds records a later snapshot
   * covers: one of them edited is refused at start, though the read from the first record stopped
   * at the missing segments (SPEC.md §60.8).
   */
  @Test
  void archivedJournalWithoutItsSegments_aCoveredRecordEditedInTheLiveFile_refusesTheStart()
      throws Exception {
    byte[] first = servedWithSnapshot(new KeepingSnapshotStore(), 3);
    archiveWithoutSegments(first);
    KeepingSnapshotStore later = new KeepingSnapshotStore(first);
    GrantChain chain = f.chain(100_000_000);
    try (Steward s = open(later)) {
      for (int i = 0; i < 2; i++) {
        ServeRequest req = GrantFixture.request("later " + i, 4, 30_000);
        s.serve(req, GrantFixture.payload(req), f.present(chain, req));
      }
    }
    byte[] closing = later.saved.getLast(); // written on close: it covers the whole journal
    try (Steward s = open(new KeepingSnapshotStore(closing))) {
      assertThat(s.head().nextSequence()).as("an untouched journal starts").isEqualTo(5);
    }
    editPrevOfLine(2);
    assertThatThrownBy(() -> open(new KeepingSnapshotStore(closing)).close())
        .isInstanceOf(StewardStartException.class)
        .hasMessageContaining("cannot be replayed");
  }

  /**
   * The start's check of the records a snapshot covers reads those records and stops at the last of
   * them (SPEC.md §60.8): the records after it are the replay's to read, from the snapshot's
   * position. Pins the bound the check's stop is set at (session 37's surviving mutant: stopping at
   * {@code count + 1} read two records more from the start, or the whole journal).
   */
  @Test
  void theStartsCheckOfTheCoveredRecords_readsFromTheFirstToTheLastCoveredOnly() throws Exception {
    byte[] snap = servedWithSnapshot(new KeepingSnapshotStore(), 2);
    long covered = org.meshjava.journal.Snapshot.open(snap, f.steward).position().count();
    GrantChain chain = f.chain(100_000_000);
    try (Steward s = open(new KeepingSnapshotStore(snap))) {
      for (int i = 0; i < 2; i++) { // records after the snapshot's position
        ServeRequest req = GrantFixture.request("after " + i, 4, 30_000);
        s.serve(req, GrantFixture.payload(req), f.present(chain, req));
      }
    }
    List<Long> fromTheStart = new ArrayList<>();
    try (Steward s =
        f.steward(
                new ForwardingJournal(FileJournal.open(journal())) {
                  @Override
                  public void read(
                      JournalPosition from,
                      java.util.Map<org.meshjava.core.ContentId, GrantChain> chains,
                      RecordSink sink)
                      throws JournalException {
                    super.read(
                        from,
                        chains,
                        r -> {
                          if (from.count() == 0) {
                            fromTheStart.add(r.seq());
                          }
                          sink.accept(r);
                        });
                  }
                })
            .snapshots(new KeepingSnapshotStore(snap))
            .snapshotEvery(0)
            .build()) {
      assertThat(s.head().nextSequence()).isEqualTo(4);
    }
    assertThat(fromTheStart).isNotEmpty().allMatch(seq -> seq < covered);
    assertThat(fromTheStart.getLast()).isEqualTo(covered - 1);
  }

  /** Flips the first digit of the {@code prev} link on the journal file's line {@code n}. */
  private void editPrevOfLine(int n) throws Exception {
    List<String> lines = Files.readAllLines(journal());
    String line = lines.get(n);
    int at = line.indexOf("\"prev\":\"") + 8;
    lines.set(
        n, line.substring(0, at) + (line.charAt(at) == '0' ? '1' : '0') + line.substring(at + 1));
    Files.write(journal(), lines);
  }

  /** Archives the records {@code snap} covers and removes the segments that hold them. */
  private void archiveWithoutSegments(byte[] snap) throws Exception {
    assertThat(
            FileJournal.archive(
                journal(), () -> Optional.of(org.meshjava.journal.Snapshot.open(snap, f.steward))))
        .as("records were archived")
        .isNotEmpty();
    Path segments = journal().resolveSibling(journal().getFileName() + ".segments");
    try (var listed = Files.list(segments)) {
      for (Path segment : listed.toList()) {
        Files.delete(segment);
      }
    }
  }

  /**
   * Regression: a journal whose last line lost its newline was cut at opening, before the snapshot
   * that covers that line refused the start, so a start that did not happen lost a whole record.
   * The refusal now leaves the file byte for byte as it was.
   */
  @Test
  void lastLineWithoutItsNewline_underASnapshotCoveringIt_refusesTheStart_andCutsNothing()
      throws Exception {
    KeepingSnapshotStore store = new KeepingSnapshotStore();
    servedWithSnapshot(store, 3);
    byte[] closing = store.saved.getLast(); // written on close: it covers the whole journal
    byte[] whole = Files.readAllBytes(journal());
    byte[] torn = java.util.Arrays.copyOf(whole, whole.length - 1);
    Files.write(journal(), torn);
    assertThatThrownBy(() -> open(new KeepingSnapshotStore(closing)).close())
        .isInstanceOfSatisfying(
            StewardStartException.class,
            e -> {
              assertThat(e.snapshotRefusal()).contains(SnapshotException.Reason.AHEAD_OF_JOURNAL);
              assertThat(e.getMessage()).contains("without a newline");
            });
    assertThat(Files.readAllBytes(journal())).as("the journal as it was").isEqualTo(torn);
    // Without the snapshot the start is the operator's call: the line is dropped, as after a
    // crash, and cut from the file at the first append.
    try (Steward s = open(new KeepingSnapshotStore())) {
      s.serve(
          GrantFixture.request("after the cut", 4, 30_000),
          GrantFixture.payload(GrantFixture.request("after the cut", 4, 30_000)));
    }
    try (FileJournal j = FileJournal.open(journal())) {
      assertThat(org.meshjava.journal.Journal.readAll(j)).as("one chain again").isNotEmpty();
    }
  }

  /** A journal of a few serves and a snapshot of it in {@code store}; returns the snapshot. */
  private byte[] servedWithSnapshot(KeepingSnapshotStore store, int serves) throws Exception {
    GrantChain chain = f.chain(100_000_000);
    try (Steward s = open(store)) {
      for (int i = 0; i < serves; i++) {
        ServeRequest req = GrantFixture.request("serve " + i, 4, 30_000);
        s.serve(req, GrantFixture.payload(req), f.present(chain, req));
      }
      s.snapshot();
    }
    return store.saved.getFirst();
  }

  /**
   * Asserts the start is refused for {@code reason}, with the advice that suits it: removing the
   * snapshot is advised only where the journal alone is the whole truth (a snapshot that is not
   * one, or was altered). Where the snapshot records history the journal lacks, removing it would
   * let what was spent since be spent again; where it is another steward's, it is theirs.
   */
  private void assertRefused(byte[] snapshot, SnapshotException.Reason reason) {
    assertThatThrownBy(() -> open(new KeepingSnapshotStore(snapshot)).close())
        .isInstanceOfSatisfying(
            StewardStartException.class,
            e -> {
              assertThat(e.snapshotRefusal()).contains(reason);
              assertThat(e.getMessage()).contains("snapshot");
              switch (reason) {
                case AHEAD_OF_JOURNAL, NOT_IN_JOURNAL ->
                    assertThat(e.getMessage())
                        .contains("put back the journal this snapshot goes with")
                        .contains("spent again")
                        .doesNotContain("remove it to replay");
                case OTHER_STEWARD ->
                    assertThat(e.getMessage())
                        .contains("a snapshot store of its own")
                        .doesNotContain("remove it to replay");
                default -> assertThat(e.getMessage()).contains("remove it to replay");
              }
            });
  }

  @Test
  void tamperedSnapshot_isRefused() throws Exception {
    KeepingSnapshotStore store = new KeepingSnapshotStore();
    byte[] snap = servedWithSnapshot(store, 3);
    byte[] id;
    try (Steward s = open(new KeepingSnapshotStore(snap))) {
      id = s.head().prev().orElseThrow().bytes();
    }
    int at = indexOf(snap, id);
    assertThat(at).as("the head's envelope id is in the snapshot").isPositive();
    byte[] tampered = snap.clone();
    tampered[at + 5] ^= 0x01;
    assertRefused(tampered, SnapshotException.Reason.BAD_SIGNATURE);
    assertRefused(new byte[] {(byte) 0x82, 0x01}, SnapshotException.Reason.MALFORMED);
  }

  @Test
  void snapshot_carriesTheTransparencyTree_andATreeThatDoesNotReproduceItsCheckpointIsRefused()
      throws Exception {
    GrantChain chain = f.chain(100_000_000);
    try (Steward s = open(new KeepingSnapshotStore())) {
      for (int i = 0; i < 5; i++) {
        ServeRequest req = GrantFixture.request("tree " + i, 4, 30_000);
        s.serve(req, GrantFixture.payload(req), f.present(chain, req));
      }
    } // closing journals a checkpoint of the five receipts
    KeepingSnapshotStore store = new KeepingSnapshotStore();
    TreeHash root;
    try (Steward s = open(store)) {
      s.snapshot();
      root = s.logRoot();
    }
    org.meshjava.journal.Snapshot snap =
        org.meshjava.journal.Snapshot.open(store.saved.getFirst(), f.steward);
    assertThat(snap.state().checkpoint()).as("the checkpoint the tree must reproduce").isPresent();
    org.meshjava.receipt.tlog.internal.MerkleTree tree = snap.tree().orElseThrow();
    assertThat(tree.size()).isEqualTo(5);
    assertThat(tree.root()).isEqualTo(root);
    try (Steward s = open(new KeepingSnapshotStore(store.saved.getFirst()))) {
      assertThat(s.logRoot()).isEqualTo(root);
    }
    // Levels signed by the steward's own key but not those of its receipts (the top one altered):
    // the restored tree's root is not the checkpoint's, and the start is refused.
    assertStartRefusedWithAlteredTree(snap, 5);
  }

  /** Re-signs {@code snap} with its tree's top level altered; a start from it must be refused. */
  private void assertStartRefusedWithAlteredTree(org.meshjava.journal.Snapshot snap, long size)
      throws Exception {
    byte[] levels = snap.tree().orElseThrow().packedLevels(size);
    levels[levels.length - 1] ^= 0x01;
    byte[] bad = org.meshjava.journal.Snapshot.sign(f.stewardKey, snap.state(), levels).encoded();
    assertThatThrownBy(() -> open(new KeepingSnapshotStore(bad)).close())
        .isInstanceOf(StewardStartException.class)
        .hasMessageContaining("checkpoint");
  }

  /**
   * The same refusal when the snapshot covers the journalled checkpoint, so no record after it
   * checks the tree: the snapshot's checkpoint is all that does.
   */
  @Test
  void snapshotCoveringItsCheckpoint_withATreeThatDoesNotReproduceIt_isRefused() throws Exception {
    KeepingSnapshotStore store = new KeepingSnapshotStore();
    try (Steward s = open(store)) {
      for (int i = 0; i < 3; i++) {
        ServeRequest req = GrantFixture.request("covered " + i, 4, 30_000);
        s.serve(req, GrantFixture.payload(req));
      }
      s.checkpoint();
      s.snapshot();
    }
    org.meshjava.journal.Snapshot snap =
        org.meshjava.journal.Snapshot.open(store.saved.getFirst(), f.steward);
    assertThat(snap.position().count()).isEqualTo(JournalFile.read(journal()).records().size());
    assertStartRefusedWithAlteredTree(snap, 3);
  }

  /**
   * A snapshot written with the log turned off carries no tree; a restart with the log on rebuilds
   * it from the snapshot's receipt ids, so every receipt is provable as if the log had been kept.
   */
  @Test
  void snapshotWrittenWithTheLogOff_restartWithTheLogOn_rebuildsTheTreeFromItsReceipts()
      throws Exception {
    KeepingSnapshotStore store = new KeepingSnapshotStore();
    List<ServeResult> served = new ArrayList<>();
    try (Steward s =
        f.steward(FileJournal.open(journal()))
            .transparencyLog(false)
            .snapshots(store)
            .snapshotEvery(0)
            .build()) {
      for (int i = 0; i < 3; i++) {
        ServeRequest req = GrantFixture.request("unlogged " + i, 4, 30_000);
        served.add(s.serve(req, GrantFixture.payload(req)));
      }
      s.snapshot();
    }
    org.meshjava.journal.Snapshot snap =
        org.meshjava.journal.Snapshot.open(store.saved.getFirst(), f.steward);
    assertThat(snap.tree()).as("no tree from a steward that kept no log").isEmpty();
    try (Steward s = open(new KeepingSnapshotStore(store.saved.getFirst()))) {
      org.meshjava.receipt.tlog.Checkpoint cp =
          org.meshjava.receipt.tlog.Checkpoint.open(s.checkpoint().orElseThrow(), s.logKey());
      assertThat(cp.size()).isEqualTo(3);
      for (int i = 0; i < 3; i++) {
        org.meshjava.core.ContentId id = served.get(i).envelope().id();
        assertThat(s.logSequenceOf(id)).hasValue(i);
        s.inclusionProof(i, 3)
            .verify(org.meshjava.receipt.tlog.InclusionProof.leafHash(id), cp.root());
      }
    }
  }

  /**
   * A snapshot taken before the first receipt (here after a revocation alone) holds no receipt, no
   * tree and no checkpoint; a restart from it continues the chain at 0 and keeps the log.
   */
  @Test
  void snapshotBeforeAnyReceipt_restartsFromIt_andTheChainAndLogStartAtZero() throws Exception {
    KeepingSnapshotStore store = new KeepingSnapshotStore();
    GrantChain chain = f.chain(1_000_000);
    try (Steward s = open(store)) {
      assertThat(s.revoke(Revocation.sign(f.org, chain, GrantFixture.NOW))).isTrue();
      s.snapshot();
    }
    org.meshjava.journal.Snapshot snap =
        org.meshjava.journal.Snapshot.open(store.saved.getFirst(), f.steward);
    assertThat(snap.state().checkpoint()).isEmpty();
    try (Steward s = open(new KeepingSnapshotStore(store.saved.getFirst()))) {
      assertThat(s.head().nextSequence()).isZero();
      ServeRequest req = GrantFixture.request("first after the snapshot", 4, 30_000);
      ServeResult first = s.serve(req, GrantFixture.payload(req));
      assertThat(first.receipt().sequence()).isZero();
      assertThat(s.witness(first.receipt(), first.envelope())).isEqualTo(WitnessVerdict.HELD);
      org.meshjava.receipt.tlog.Checkpoint cp =
          org.meshjava.receipt.tlog.Checkpoint.open(s.checkpoint().orElseThrow(), s.logKey());
      assertThat(cp.size()).isEqualTo(1);
    }
  }

  @Test
  void snapshotAheadOfItsJournal_isRefused() throws Exception {
    KeepingSnapshotStore store = new KeepingSnapshotStore();
    GrantChain chain = f.chain(100_000_000);
    byte[] older;
    try (Steward s = open(store)) {
      ServeRequest req = GrantFixture.request("first", 4, 30_000);
      s.serve(req, GrantFixture.payload(req), f.present(chain, req));
    }
    older = Files.readAllBytes(journal());
    try (Steward s = open(store)) {
      ServeRequest req = GrantFixture.request("second", 4, 30_000);
      s.serve(req, GrantFixture.payload(req), f.present(chain, req));
      s.snapshot();
    }
    Files.write(journal(), older); // the journal restored from an older copy
    assertRefused(store.saved.getLast(), SnapshotException.Reason.AHEAD_OF_JOURNAL);
  }

  @Test
  void snapshotOfAnotherHistory_isRefused() throws Exception {
    KeepingSnapshotStore store = new KeepingSnapshotStore();
    byte[] snap = servedWithSnapshot(store, 2);
    // Another journal of the same steward, longer, with other records at that place.
    Files.delete(journal());
    servedWithSnapshot(new KeepingSnapshotStore(), 5);
    assertRefused(snap, SnapshotException.Reason.NOT_IN_JOURNAL);
  }

  @Test
  void snapshotOfAnotherSteward_isRefused() throws Exception {
    GrantFixture other = new GrantFixture();
    KeepingSnapshotStore theirs = new KeepingSnapshotStore();
    GrantChain chain = other.chain(100_000_000);
    Path theirJournal = dir.resolve("other.journal");
    try (Steward s =
        other.steward(FileJournal.open(theirJournal)).snapshots(theirs).snapshotEvery(0).build()) {
      ServeRequest req = GrantFixture.request("theirs", 4, 30_000);
      s.serve(req, GrantFixture.payload(req), other.present(chain, req));
      s.snapshot();
    }
    servedWithSnapshot(new KeepingSnapshotStore(), 2);
    assertRefused(theirs.saved.getFirst(), SnapshotException.Reason.OTHER_STEWARD);
  }

  private static int indexOf(byte[] hay, byte[] needle) {
    outer:
    for (int i = 0; i + needle.length <= hay.length; i++) {
      for (int k = 0; k < needle.length; k++) {
        if (hay[i + k] != needle[k]) {
          continue outer;
        }
      }
      return i;
    }
    return -1;
  }
}
