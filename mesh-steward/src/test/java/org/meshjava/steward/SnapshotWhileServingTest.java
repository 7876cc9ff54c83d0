package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.core.ServeRequest;
import org.meshjava.jcp.GrantChain;
import org.meshjava.journal.FileJournal;
import org.meshjava.journal.FileSnapshotStore;
import org.meshjava.journal.JournalPosition;

/**
 * Snapshots taken while a pool serves on a grant (SPEC.md §60.8): by the cadence on its background
 * thread and on demand from another thread at once. Each round closes the steward (a last snapshot)
 * and starts it twice, from the snapshots and from the journal alone: the two starts must agree on
 * the chain head and the grant's spend, and the snapshot positions handed out only grow.
 */
@Timeout(120)
class SnapshotWhileServingTest {
  private static final int THREADS = 3;

  final GrantFixture f = new GrantFixture();
  @TempDir Path dir;

  @Test
  void snapshotsTakenAmidServes_restartToTheStateAFullReplayReaches() throws Exception {
    ServingPool.rounds(2, this::round);
  }

  @Test
  @Tag("slow")
  void snapshotsTakenAmidServes_manyRounds() throws Exception {
    ServingPool.rounds(100, this::round);
  }

  private void round(int round) throws Exception {
    Path journal = dir.resolve("round-" + round + ".journal");
    FileSnapshotStore store = FileSnapshotStore.beside(journal);
    GrantChain chain = f.chain(1_000_000_000);
    try (Steward s =
            f.steward(FileJournal.open(journal)).snapshots(store).snapshotEvery(4).build();
        ExecutorService others = Executors.newSingleThreadExecutor()) {
      ServingPool serving =
          ServingPool.start(
              THREADS,
              (thread, i) -> {
                if (i == 12) {
                  throw new StewardClosedException(); // this thread is done
                }
                ServeRequest req = GrantFixture.request(round + "/" + thread + "/" + i, 4, 70_000);
                return i % 3 == 0
                    ? s.serve(req, GrantFixture.payload(req))
                    : s.serve(req, GrantFixture.payload(req), f.present(chain, req));
              });
      Future<?> snapshotting =
          others.submit(
              () -> {
                long last = 0;
                for (int i = 0; i < 10; i++) {
                  JournalPosition at = s.snapshot();
                  assertThat(at.count()).isGreaterThanOrEqualTo(last);
                  last = at.count();
                }
                return null;
              });
      serving.end();
      snapshotting.get(30, TimeUnit.SECONDS);
    }
    long head;
    long remaining;
    try (Steward fromSnapshot = f.steward(FileJournal.open(journal)).snapshots(store).build()) {
      head = fromSnapshot.head().nextSequence();
      remaining = fromSnapshot.spend().remainingUj(chain);
    }
    try (Steward replayed = f.steward(FileJournal.open(journal)).build()) {
      assertThat(replayed.head().nextSequence()).as("round %d", round).isEqualTo(head);
      assertThat(replayed.spend().remainingUj(chain)).as("round %d", round).isEqualTo(remaining);
      assertThat(head).isEqualTo(THREADS * 12L);
    }
  }
}
