package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.core.ServeRequest;
import org.meshjava.journal.FileJournal;
import org.meshjava.journal.FileSnapshotStore;
import org.meshjava.journal.JournalEntry;
import org.meshjava.journal.JournalPosition;
import org.meshjava.journal.Snapshot;
import org.meshjava.journal.SnapshotException;
import org.meshjava.journal.SnapshotHeader;
import org.meshjava.journal.SnapshotMapping;
import org.meshjava.journal.SnapshotStore;

/**
 * The snapshotter's warnings about a snapshot it could not read back name what failed even when the
 * exception carries no message (a bare {@code IllegalStateException} from a store, an unmapped
 * buffer): they read "...: null" before, naming nothing an operator could act on.
 */
class SnapshotterFailureWordsTest {
  final GrantFixture f = new GrantFixture();
  @TempDir Path dir;

  @Test
  void aReadBackThatFailsWithoutAMessage_isWarnedByItsClass() throws Exception {
    Store store = new Store(new KeepingSnapshotStore());
    store.mappingFails = true;
    String log;
    try (Steward s = open(store)) {
      serve(s, 3);
      log = logOf(() -> s.snapshot());
    }
    assertThat(log)
        .contains("not read back, its state stays on the heap: IllegalStateException")
        .doesNotContain(": null");
  }

  @Test
  void aCloseThatCannotReadTheLatestSnapshot_isWarnedByItsClass() throws Exception {
    Path snaps = Files.createDirectories(dir.resolve("snaps"));
    Store store = new Store(new FileSnapshotStore(snaps));
    Steward s = open(store);
    String log;
    try {
      // Past 4096 ids, so that the keeper reads its levels from the mapping read back, which the
      // close then moves it off by reading the latest file again.
      serve(s, 4200);
      s.snapshot();
      serve(s, 1);
      store.bufferFails = true;
    } finally {
      log = logOf(s::close);
    }
    assertThat(log)
        .contains("could not be read on close; the one read back before stays mapped")
        .contains("until the process ends: IllegalStateException")
        .doesNotContain(": null");
  }

  /**
   * Regression: the latest snapshot file cut short (rewritten in place) while the close read it
   * again threw "java.lang.InternalError: a fault occurred in an unsafe memory access operation"
   * out of {@code Steward.close}, before the journal was closed and let go; the close warns and
   * completes, and the journal can be opened again.
   */
  @Test
  void aCloseWhoseLatestSnapshotIsCutShortAsItReadsIt_warns_andReleasesTheJournal()
      throws Exception {
    Store store = new Store(new FileSnapshotStore(Files.createDirectories(dir.resolve("snaps"))));
    Path journal = dir.resolve("steward.journal");
    // Enough receipts that the log reads its tree's levels from the snapshot read back, written
    // without a serve each.
    try (FileJournal j = FileJournal.openUnsynced(journal)) {
      for (int i = 0; i < LogSnapshotCutShortTest.RECEIPTS; i++) {
        j.append(new JournalEntry.Sealed(i, LogSnapshotCutShortTest.envelope(i)));
      }
    }
    Steward s = f.steward(FileJournal.open(journal)).snapshots(store).snapshotEvery(0).build();
    String log;
    try {
      s.snapshot();
      serve(s, 1);
      store.bufferCutIn = dir;
    } finally {
      log = logOf(s::close);
    }
    assertThat(log).contains("could not be read on close; the one read back before stays mapped");
    try (Steward again = f.steward(FileJournal.open(journal)).build()) {
      assertThat(again.unresolved()).isEmpty();
    }
  }

  /**
   * Regression: a snapshot just written and cut short on disk as it was read back was warned as
   * "the snapshot this steward restarted from ... was cut short", which sent the operator to the
   * wrong file, and no snapshot was taken again until a restart, though nothing read the cut file
   * yet. The warning names the snapshot just written, and the next one is taken.
   */
  @Test
  void aSnapshotCutShortAsItIsReadBack_isWarnedAsSuch_andTheNextOneIsTaken() throws Exception {
    Store store = new Store(new FileSnapshotStore(Files.createDirectories(dir.resolve("snaps"))));
    try (Steward s = open(store)) {
      serve(s, 3);
      store.mappingCutIn = dir;
      JournalPosition[] first = new JournalPosition[1];
      String log = logOf(() -> first[0] = s.snapshot());
      store.mappingCutIn = null;

      assertThat(log)
          .contains("was cut short on disk while it was read back")
          .contains("the next snapshot is written as usual")
          .doesNotContain("restarted from");
      serve(s, 2);
      String next = logOf(() -> assertThat(s.snapshot().count()).isGreaterThan(first[0].count()));
      assertThat(next).contains("written to").doesNotContain("cut short");
    }
  }

  /**
   * Regression: the warning for a snapshot cut short as it was read back said a restart refuses the
   * cut file and "then replays the journal from an earlier snapshot"; a restart before the next
   * snapshot (a crash, or a close whose last save fails) is refused by it ({@code MALFORMED}) and
   * starts on nothing until the operator removes it. The warning says that, and what to do.
   */
  @Test
  void aSnapshotCutShortAsItIsReadBack_refusesARestartBeforeTheNext_asItsWarningSays()
      throws Exception {
    Path snaps = Files.createDirectories(dir.resolve("snaps"));
    Store store = new Store(new FileSnapshotStore(snaps));
    Steward s = open(store);
    serve(s, 3);
    store.mappingCutIn = dir;
    String log = logOf(() -> s.snapshot());
    store.mappingCutIn = null;
    store.saveFails = true; // no newer snapshot replaces the cut one before the restart
    catchThrowable(s::close);

    Throwable restart = catchThrowable(() -> open(new FileSnapshotStore(snaps)).close());

    assertThat(restart)
        .isInstanceOfSatisfying(
            StewardStartException.class,
            e -> assertThat(e.snapshotRefusal()).contains(SnapshotException.Reason.MALFORMED));
    assertThat(log)
        .contains("was cut short on disk while it was read back")
        .doesNotContain("replays the journal from an earlier snapshot")
        .contains("a restart before that is refused by the cut file")
        .contains("remove it");
  }

  /**
   * Regression: an Error other than a mapped read's fault out of the close's last snapshot (here a
   * store's assertion) left {@code Steward.close} before the journal was closed and its claim let
   * go, so no steward could open that journal again in this process. The close lets everything go
   * and then throws that Error.
   */
  @Test
  void anErrorOutOfTheLastSnapshot_isThrown_onceTheJournalIsLetGo() throws Exception {
    Store store = new Store(new KeepingSnapshotStore());
    Path journal = dir.resolve("steward.journal");
    Steward s = f.steward(FileJournal.open(journal)).snapshots(store).snapshotEvery(0).build();
    serve(s, 1);
    store.saveFails = true;

    Throwable thrown = catchThrowable(s::close);

    assertThat(thrown).isInstanceOf(AssertionError.class).hasMessage("simulated");
    try (Steward again = f.steward(FileJournal.open(journal)).build()) {
      assertThat(again.unresolved()).isEmpty();
    }
  }

  /**
   * Regression: an Error out of the close's last snapshot skipped the snapshotter's retiring, so
   * the closed steward's {@code snapshot()} tried the closed journal and was refused as a journal
   * that could not be read, not as a closed steward, and its read-back mapping stayed mapped.
   */
  @Test
  void anErrorOutOfTheLastSnapshot_stillRetiresTheSnapshotter() throws Exception {
    Store store = new Store(new KeepingSnapshotStore());
    Steward s = open(store);
    serve(s, 1);
    store.saveFails = true;
    catchThrowable(s::close);
    store.saveFails = false;

    Throwable after = catchThrowable(s::snapshot);

    assertThat(after)
        .isInstanceOf(SnapshotException.class)
        .hasMessageContaining("the steward is closed");
  }

  /** A steward on an unsynced journal in {@code dir} keeping its snapshots in {@code store}. */
  private Steward open(SnapshotStore store) throws Exception {
    return f.steward(FileJournal.openUnsynced(dir.resolve("steward.journal")))
        .snapshots(store)
        .snapshotEvery(0)
        .build();
  }

  private static void serve(Steward s, int n) throws Exception {
    for (int i = 0; i < n; i++) {
      ServeRequest req = GrantFixture.request("words " + i, 1, 30_000);
      s.serve(req, GrantFixture.payload(req));
    }
  }

  /** What the snapshotter logs while {@code action} runs (slf4j-simple writes to System.err). */
  static String logOf(ThrowingAction action) throws Exception {
    PrintStream err = System.err;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
    try {
      action.run();
    } finally {
      System.setErr(err);
    }
    return captured.toString(StandardCharsets.UTF_8);
  }

  @FunctionalInterface
  interface ThrowingAction {
    void run() throws Exception;
  }

  /** A store that forwards to another, but fails reads with a message-less exception when told. */
  private static final class Store implements SnapshotStore {
    private final SnapshotStore inner;
    volatile boolean mappingFails;
    volatile boolean bufferFails;
    volatile boolean saveFails;

    /** When set, the latest snapshot in its {@code snaps} is cut short once mapped for a read. */
    volatile @org.jspecify.annotations.Nullable Path bufferCutIn;

    /** As {@link #bufferCutIn}, for the mapping a snapshot just written is read back from. */
    volatile @org.jspecify.annotations.Nullable Path mappingCutIn;

    Store(SnapshotStore inner) {
      this.inner = inner;
    }

    @Override
    public void save(Snapshot snapshot) throws SnapshotException {
      if (saveFails) {
        throw new AssertionError("simulated");
      }
      inner.save(snapshot);
    }

    @Override
    public long maxBytes() {
      return inner.maxBytes();
    }

    @Override
    public Optional<byte[]> latest() throws SnapshotException {
      return inner.latest();
    }

    @Override
    public Optional<ByteBuffer> latestBuffer() throws SnapshotException {
      if (bufferFails) {
        throw new IllegalStateException();
      }
      Optional<ByteBuffer> mapped = inner.latestBuffer();
      cutIfTold(bufferCutIn);
      return mapped;
    }

    private static void cutIfTold(@org.jspecify.annotations.Nullable Path cut) {
      if (cut != null) {
        try {
          SnapshotCutShortWhileServingTest.cutLatestSnapshot(cut);
        } catch (Exception e) {
          throw new AssertionError(e);
        }
      }
    }

    @Override
    public Optional<SnapshotMapping> latestMapping() throws SnapshotException {
      if (mappingFails) {
        throw new IllegalStateException();
      }
      Optional<SnapshotMapping> mapped = inner.latestMapping();
      cutIfTold(mappingCutIn);
      return mapped;
    }

    @Override
    public Optional<SnapshotHeader> latestHeader() throws SnapshotException {
      return inner.latestHeader();
    }

    @Override
    public String describe() {
      return inner.describe();
    }
  }
}
