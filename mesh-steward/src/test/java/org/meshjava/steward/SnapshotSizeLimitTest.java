package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.core.ServeRequest;
import org.meshjava.journal.FileJournal;
import org.meshjava.journal.FileSnapshotStore;
import org.meshjava.journal.Snapshot;
import org.meshjava.journal.SnapshotException;
import org.meshjava.journal.SnapshotHeader;
import org.meshjava.journal.SnapshotStore;

/**
 * A snapshot larger than its store saves or reads back (SPEC.md §60.8, "Size": about 22 million
 * receipts for a folder) neither stops a steward serving nor keeps one from starting: the save is
 * skipped once, keeping the previous snapshot, and a start whose latest snapshot cannot be read
 * replays the whole journal. The limit is made small here by a store that refuses past it as the
 * folder store does past {@link Snapshot#MAX_BYTES} (FileSnapshotStoreTest pins that one).
 */
class SnapshotSizeLimitTest {
  final GrantFixture f = new GrantFixture();
  @TempDir Path dir;

  /** A folder store refusing, as {@code TOO_LARGE}, snapshots over {@link #max} bytes. */
  static final class CappedStore implements SnapshotStore {
    final FileSnapshotStore files;
    volatile long max;

    /** How many times a snapshot was tried: each attempt asks the limit once. */
    final AtomicInteger attempts = new AtomicInteger();

    CappedStore(Path dir, long max) {
      this.files = new FileSnapshotStore(dir);
      this.max = max;
    }

    @Override
    public long maxBytes() {
      attempts.incrementAndGet();
      return max;
    }

    @Override
    public void save(Snapshot snapshot) throws SnapshotException {
      int size = snapshot.encoded().length;
      if (size > max) {
        throw SnapshotException.tooLarge("test snapshot", size, max);
      }
      files.save(snapshot);
    }

    @Override
    public Optional<byte[]> latest() throws SnapshotException {
      return files.latest();
    }

    @Override
    public Optional<ByteBuffer> latestBuffer() throws SnapshotException {
      Optional<ByteBuffer> b = files.latestBuffer();
      if (b.isPresent() && b.get().remaining() > max) {
        throw SnapshotException.tooLarge("test snapshot file", b.get().remaining(), max);
      }
      return b;
    }

    @Override
    public Optional<SnapshotHeader> latestHeader() throws SnapshotException {
      return files.latestHeader();
    }

    @Override
    public String describe() {
      return files.describe();
    }
  }

  Path journal() {
    return dir.resolve("steward.journal");
  }

  Path snaps() {
    return dir.resolve("steward.journal.snapshots");
  }

  void serve(Steward s, String prompt) throws Exception {
    ServeRequest req = GrantFixture.request(prompt, 3, 10_000);
    s.serve(req, GrantFixture.payload(req));
  }

  @Test
  void aStart_whoseLatestSnapshotIsTooLargeToRead_replaysTheWholeJournal() throws Exception {
    SnapshotRestartTest.Recovered before;
    try (Steward s =
        f.steward(FileJournal.open(journal()))
            .snapshots(new FileSnapshotStore(snaps()))
            .snapshotEvery(0)
            .build()) {
      for (int i = 0; i < 3; i++) {
        serve(s, "before " + i);
      }
      before = SnapshotRestartTest.Recovered.of(s);
    } // the close writes a snapshot covering every record
    assertThat(new FileSnapshotStore(snaps()).latest()).isPresent();

    CappedStore capped = new CappedStore(snaps(), 64);
    try (Steward s =
        f.steward(FileJournal.open(journal())).snapshots(capped).snapshotEvery(0).build()) {
      assertThat(SnapshotRestartTest.Recovered.of(s)).isEqualTo(before);
      serve(s, "after");
      assertThat(s.head().nextSequence()).isEqualTo(before.head().nextSequence() + 1);
      // Refused before the receipt ids and tree levels are packed, which past the real limit
      // would not fit their arrays.
      assertThatThrownBy(s::snapshot)
          .isInstanceOfSatisfying(
              SnapshotException.class,
              e -> assertThat(e.reason()).isEqualTo(SnapshotException.Reason.TOO_LARGE))
          .hasMessageContaining("counting its receipt ids and tree levels alone");
    }
  }

  /**
   * Regression: a start whose latest snapshot was too large to read replayed the whole journal
   * without the rollback checks a start from that snapshot makes, so a journal restored from an
   * older copy beside a newer snapshot started (and could spend again what it had forgotten). The
   * snapshot's header, read without its body, now refuses it as the snapshot would: shorter than it
   * covers ({@code AHEAD_OF_JOURNAL}), or another record where its last covered one stood ({@code
   * NOT_IN_JOURNAL}).
   */
  @Test
  void aStart_whoseTooLargeSnapshotCoversMoreThanTheJournal_isRefusedByItsHeader()
      throws Exception {
    Path older = dir.resolve("older.journal");
    try (Steward s =
        f.steward(FileJournal.open(journal()))
            .snapshots(new FileSnapshotStore(snaps()))
            .snapshotEvery(0)
            .build()) {
      serve(s, "kept");
      Files.copy(journal(), older);
      serve(s, "forgotten 1");
      serve(s, "forgotten 2");
    } // the close writes a snapshot covering every record
    Snapshot latest = Snapshot.openAsNamed(new FileSnapshotStore(snaps()).latest().orElseThrow());
    SnapshotHeader header = new CappedStore(snaps(), 64).latestHeader().orElseThrow();
    assertThat(header).isEqualTo(latest.header());

    Files.copy(older, journal(), StandardCopyOption.REPLACE_EXISTING);
    StewardStartException shorter = startRefusedOverCappedSnapshot();
    assertThat(shorter.snapshotRefusal()).contains(SnapshotException.Reason.AHEAD_OF_JOURNAL);
    assertThat(shorter).hasMessageContaining("covers " + latest.position().count() + " records");

    // The older copy grown past the snapshot's position by another history: its record there
    // links to another record than the one the snapshot covers.
    try (Steward s = f.steward(FileJournal.open(journal())).build()) {
      for (int i = 0; i < 4; i++) {
        serve(s, "another " + i);
      }
    }
    StewardStartException other = startRefusedOverCappedSnapshot();
    assertThat(other.snapshotRefusal()).contains(SnapshotException.Reason.NOT_IN_JOURNAL);
    assertThat(other).hasMessageContaining("does not hash as the snapshot says");
  }

  /** How a start on {@link #journal()} whose latest snapshot is too large to read is refused. */
  StewardStartException startRefusedOverCappedSnapshot() throws Exception {
    try (Steward s =
        f.steward(FileJournal.open(journal())).snapshots(new CappedStore(snaps(), 64)).build()) {
      throw new AssertionError("started on " + journal() + " as " + s.identity());
    } catch (StewardStartException e) {
      return e;
    }
  }

  @Test
  void aSnapshotThatDoesNotFit_isSkipped_thePreviousKept_andNoneTriedAgainUntilARestart()
      throws Exception {
    CappedStore capped = new CappedStore(snaps(), Long.MAX_VALUE);
    Steward s = f.steward(FileJournal.open(journal())).snapshots(capped).snapshotEvery(1).build();
    try {
      serve(s, "first");
      s.snapshot();
      List<Path> kept;
      try (var files = Files.list(snaps())) {
        kept = files.sorted().toList();
      }
      byte[] previous = Files.readAllBytes(kept.getLast());
      // From here the receipt ids and tree levels of one more receipt no longer fit.
      capped.max = previous.length;
      int before = capped.attempts.get();
      serve(s, "second");
      SnapshotException refused = null;
      try {
        s.snapshot();
      } catch (SnapshotException e) {
        refused = e;
      }
      assertThat(refused).isNotNull();
      assertThat(refused.reason()).isEqualTo(SnapshotException.Reason.TOO_LARGE);
      assertThat(refused.getMessage()).contains("bytes, more than the " + previous.length);
      for (int i = 0; i < 5; i++) {
        serve(s, "more " + i); // every_records 1: each would queue a snapshot
      }
      SnapshotException again = refused;
      assertThatThrownBy(s::snapshot).isSameAs(again);
      s.close(); // a close would write a last one
      s = null;
      // Tried once (by the cadence or the call above, whichever came first), then never again.
      assertThat(capped.attempts.get() - before).isEqualTo(1);
      try (var files = Files.list(snaps())) {
        assertThat(files.sorted().toList()).isEqualTo(kept);
      }
      assertThat(Files.readAllBytes(kept.getLast())).isEqualTo(previous);
    } finally {
      if (s != null) {
        s.close();
      }
    }
  }
}
