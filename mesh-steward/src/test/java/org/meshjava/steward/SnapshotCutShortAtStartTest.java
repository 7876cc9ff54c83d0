package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.core.ServeRequest;
import org.meshjava.jcp.GrantChain;
import org.meshjava.journal.FileJournal;
import org.meshjava.journal.FileSnapshotStore;
import org.meshjava.journal.JournalException;
import org.meshjava.journal.Snapshot;
import org.meshjava.journal.SnapshotException;
import org.meshjava.journal.SnapshotStore;

/**
 * A start that restores from the latest snapshot file reads it in place, mapped (SPEC.md §60.8,
 * "Reading in place"); the file cut short (rewritten in place) between its mapping and its reading
 * makes that read fault. Regression: the start threw the JVM's raw {@link InternalError} ("a fault
 * occurred in an unsafe memory access operation") and kept the journal open. Now the start is
 * refused {@link StewardStartException} ({@code SNAPSHOT_REFUSED}) saying what happened, the
 * journal is let go, and the next start refuses the cut file in its own words.
 */
class SnapshotCutShortAtStartTest {
  final GrantFixture f = new GrantFixture();
  @TempDir Path dir;

  @Test
  void aSnapshotCutShortAsTheStartReadsIt_isRefusedTyped_andTheJournalIsLetGo() throws Exception {
    GrantChain chain = f.chain(100_000_000);
    ServeRequest first = GrantFixture.request("before the snapshot", 4, 70_000);
    try (Steward s = SnapshotCutShortWhileServingTest.open(f, dir)) {
      s.serve(first, GrantFixture.payload(first), f.present(chain, first));
    }
    FileSnapshotStore files = new FileSnapshotStore(dir.resolve("snaps"));

    Throwable thrown =
        catchThrowable(
            () ->
                f.steward(FileJournal.open(dir.resolve("journal")))
                    .snapshots(new CutAfterMapping(files, dir))
                    .build()
                    .close());

    assertThat(thrown).isInstanceOf(StewardStartException.class);
    assertThat(((StewardStartException) thrown).reason())
        .isEqualTo(JournalException.Reason.SNAPSHOT_REFUSED);
    assertThat(thrown.getMessage())
        .contains("cannot be read, so the steward does not start")
        .contains("the latest snapshot was cut short on disk while this start read it in place");
    // Let go: this process may open the journal again.
    FileJournal.open(dir.resolve("journal")).close();
    Throwable restart = catchThrowable(() -> SnapshotCutShortWhileServingTest.open(f, dir).close());
    assertThat(restart).isNotInstanceOf(Error.class);
  }

  /** {@code files}, whose latest file is cut to nothing once it is mapped, before it is read. */
  private record CutAfterMapping(FileSnapshotStore files, Path dir) implements SnapshotStore {
    @Override
    public Optional<ByteBuffer> latestBuffer() throws SnapshotException {
      Optional<ByteBuffer> mapped = files.latestBuffer();
      try {
        SnapshotCutShortWhileServingTest.cutLatestSnapshot(dir);
      } catch (Exception e) {
        throw new AssertionError(e);
      }
      return mapped;
    }

    @Override
    public void save(Snapshot snapshot) throws SnapshotException {
      files.save(snapshot);
    }

    @Override
    public Optional<byte[]> latest() throws SnapshotException {
      return files.latest();
    }

    @Override
    public String describe() {
      return files.describe();
    }
  }
}
