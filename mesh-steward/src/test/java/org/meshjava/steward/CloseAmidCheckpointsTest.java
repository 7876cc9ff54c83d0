package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.core.ServeRequest;
import org.meshjava.jcp.GrantChain;
import org.meshjava.journal.FileJournal;
import org.meshjava.journal.FileSnapshotStore;
import org.meshjava.journal.JournalEntry;
import org.meshjava.journal.JournalRecord;
import org.meshjava.receipt.tlog.Checkpoint;

/**
 * {@link Steward#close()} while four threads serve with a checkpoint due after every receipt and a
 * snapshot every three records, and a fifth asks for checkpoints and snapshots by hand: the close
 * signs its last checkpoint and writes its last snapshot amid cadence checkpoints and snapshots
 * other threads are taking. Whatever the grace (none, or 30 s), nothing is written once the close
 * returned, the journal's checkpoints are in size order, and a start from the snapshots agrees with
 * a start from the journal alone on the receipts handed out and the grant's spend.
 */
@Timeout(120)
class CloseAmidCheckpointsTest {
  private static final int THREADS = 4;
  private static final long BUDGET_UJ = 1_000_000_000;

  final GrantFixture f = new GrantFixture();
  @TempDir Path dir;

  @Test
  void closeAmidCadenceCheckpointsAndSnapshots_leavesAJournalBothStartsAgreeOn() throws Exception {
    ServingPool.rounds(4, this::round);
  }

  @Test
  @Tag("slow")
  void closeAmidCadenceCheckpointsAndSnapshots_manyRounds() throws Exception {
    ServingPool.rounds(200, this::round);
  }

  private void round(int round) throws Exception {
    Duration grace = round % 2 == 0 ? Duration.ZERO : Duration.ofSeconds(30);
    Path journal = dir.resolve("round-" + round + ".journal");
    FileSnapshotStore store = FileSnapshotStore.beside(journal);
    GrantChain chain = f.chain(BUDGET_UJ);
    Steward s =
        f.steward(FileJournal.open(journal))
            .checkpointEvery(1)
            .snapshots(store)
            .snapshotEvery(3)
            .closeGrace(grace)
            .build();
    AtomicBoolean closed = new AtomicBoolean();
    ServingPool serving;
    try (ExecutorService byHand = Executors.newSingleThreadExecutor()) {
      serving =
          ServingPool.start(
              THREADS,
              (thread, i) -> {
                ServeRequest req = GrantFixture.request(round + "/" + thread + "/" + i, 4, 70_000);
                return i % 2 == 0
                    ? s.serve(req, GrantFixture.payload(req), f.present(chain, req))
                    : s.serve(req, GrantFixture.payload(req));
              });
      Future<?> asking =
          byHand.submit(
              () -> {
                while (!closed.get()) {
                  try {
                    s.checkpoint();
                    s.snapshot();
                  } catch (ServeException | org.meshjava.journal.SnapshotException e) {
                    // refused once the close has begun: what is checked is the journal
                  }
                }
                return null;
              });
      serving.awaitSealed(THREADS * 2);
      s.close();
      closed.set(true);
      long lengthAtClose = Files.size(journal);
      serving.end();
      asking.get(30, TimeUnit.SECONDS);
      assertThat(Files.size(journal))
          .as("round %d: nothing written after close returned", round)
          .isEqualTo(lengthAtClose);
    }

    List<Long> sizes = new ArrayList<>();
    long handedOut = serving.handedOut.size();
    try (FileJournal read = FileJournal.open(journal)) {
      for (JournalRecord r : read.recovered()) {
        if (r.entry() instanceof JournalEntry.Checkpoint c) {
          sizes.add(Checkpoint.open(c.note(), Checkpoint.logKey(f.steward)).size());
        }
      }
    }
    assertThat(sizes).as("round %d: checkpoints in size order", round).isSorted().isNotEmpty();
    // With no grace, a serve cut by the close may seal after the close's checkpoint was signed.
    assertThat(sizes.getLast())
        .as("round %d: the close's checkpoint", round)
        .isLessThanOrEqualTo(handedOut);
    if (!grace.isZero()) {
      assertThat(sizes.getLast()).as("round %d: covers every receipt", round).isEqualTo(handedOut);
    }
    long head;
    long remaining;
    try (Steward fromSnapshot = f.steward(FileJournal.open(journal)).snapshots(store).build()) {
      head = fromSnapshot.head().nextSequence();
      remaining = fromSnapshot.spend().remainingUj(chain);
    }
    try (Steward replayed = f.steward(FileJournal.open(journal)).build()) {
      assertThat(replayed.head().nextSequence()).as("round %d", round).isEqualTo(head);
      assertThat(head).as("round %d: receipts handed out", round).isEqualTo(handedOut);
      assertThat(replayed.spend().remainingUj(chain)).as("round %d", round).isEqualTo(remaining);
    }
  }
}
