package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.core.ServeRequest;
import org.meshjava.jcp.Gate;
import org.meshjava.jcp.GrantChain;
import org.meshjava.jcp.Revocations;
import org.meshjava.jcp.SpendLedger;
import org.meshjava.journal.FileJournal;
import org.meshjava.journal.ForwardingJournal;
import org.meshjava.journal.Journal;
import org.meshjava.journal.JournalPosition;
import org.meshjava.journal.JournalRecord;
import org.meshjava.journal.Snapshot;
import org.meshjava.journal.internal.JournalFile;
import org.meshjava.journal.internal.ReplayState;

/**
 * A snapshot taken while appends race it holds exactly the state the records before its position
 * replay to (SPEC.md §60.8), which {@code mesh journal verify} checks byte for byte. The
 * snapshotter notes where the journal ends, then reads it; records appended in between are read
 * too, but only those before the noted end are applied.
 */
class SnapshotReadAheadTest {
  final GrantFixture f = new GrantFixture();
  @TempDir Path dir;

  /** A journal whose position can be held back, as if the snapshotter looked before an append. */
  static final class LaggingJournal extends ForwardingJournal {
    @Nullable JournalPosition pinned;

    LaggingJournal(Journal delegate) {
      super(delegate);
    }

    void pinHere() {
      pinned = delegate().position();
    }

    @Override
    public JournalPosition position() {
      JournalPosition p = pinned;
      return p != null ? p : super.position();
    }
  }

  @Test
  void snapshotTakenWhileAChainIsAppended_holdsOnlyTheChainsOfTheRecordsItCovers()
      throws Exception {
    Path journal = dir.resolve("steward.journal");
    KeepingSnapshotStore store = new KeepingSnapshotStore();
    LaggingJournal lagging = new LaggingJournal(FileJournal.open(journal));
    try (Steward s = f.steward(lagging).snapshots(store).snapshotEvery(0).build()) {
      ServeRequest first = GrantFixture.request("before the snapshot looks", 4, 30_000);
      s.serve(first, GrantFixture.payload(first), f.present(f.chain(5_000_000), first));
      lagging.pinHere();
      // Appended after the snapshotter noted the end, before it reads: a new chain's record.
      GrantChain later = f.chain(7_000_000);
      ServeRequest second = GrantFixture.request("after it looks", 4, 30_000);
      s.serve(second, GrantFixture.payload(second), f.present(later, second));
      assertThat(s.snapshot()).isEqualTo(lagging.position());
      lagging.pinned = null;
    }
    Snapshot snap = Snapshot.open(store.saved.getFirst(), f.steward);
    List<JournalRecord> records = JournalFile.read(journal).records();
    ReplayState replay =
        ReplayState.fresh(Gate.create(f.steward, SpendLedger.inMemory(), Revocations.none()));
    replay.applyAll(records.subList(0, (int) snap.position().count()));

    assertThat(snap.state().chains()).hasSize(1);
    assertThat(Snapshot.canonicalBody(f.steward, snap.state()))
        .as("the snapshot's body against a replay of the records it covers")
        .isEqualTo(Snapshot.canonicalBody(f.steward, replay.capture(-1)));
  }
}
