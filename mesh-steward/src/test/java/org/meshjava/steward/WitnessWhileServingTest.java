package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CyclicBarrier;
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
import org.meshjava.journal.JournalEntry;
import org.meshjava.journal.JournalRecord;
import org.meshjava.journal.internal.JournalFile;
import org.meshjava.receipt.Jcr1;
import org.meshjava.receipt.SealedReceipt;

/**
 * The witness (§2.2) and the transparency log's checkpoints asked while a pool serves on a grant:
 * two callers showing the same receipt the journal lacks at once, a third asking for checkpoints
 * and witnessing receipts the journal holds. Grants are suspended exactly once (one {@code
 * Suspended} record), no decision is journalled after it, every serving thread then stops refused
 * {@code GRANTS_SUSPENDED}, nothing deadlocks, and a restart keeps the suspension and the spend.
 */
@Timeout(120)
class WitnessWhileServingTest {
  private static final int THREADS = 3;

  final GrantFixture f = new GrantFixture();
  @TempDir Path dir;

  @Test
  void aReceiptTheJournalLacks_shownTwiceAmidServes_suspendsGrantsOnce() throws Exception {
    ServingPool.rounds(10, this::round);
  }

  @Test
  @Tag("slow")
  void aReceiptTheJournalLacks_shownTwiceAmidServes_manyRounds() throws Exception {
    ServingPool.rounds(300, this::round);
  }

  private void round(int round) throws Exception {
    Path journal = dir.resolve("round-" + round + ".journal");
    GrantChain chain = f.chain(1_000_000_000);
    long remaining;
    try (Steward s = f.steward(FileJournal.open(journal)).checkpointEvery(3).build();
        ExecutorService others = Executors.newCachedThreadPool()) {
      ServeRequest plain = GrantFixture.request(round + "/plain", 4, 70_000);
      ServeResult first = s.serve(plain, GrantFixture.payload(plain));
      SealedReceipt notRecorded =
          Jcr1.seal(
              first.receipt().toBuilder().chain(1_000, Optional.of(first.envelope().id())).build(),
              f.stewardKey);
      ServingPool serving =
          ServingPool.start(
              THREADS,
              (thread, i) -> {
                ServeRequest req = GrantFixture.request(round + "/" + thread + "/" + i, 4, 70_000);
                return s.serve(req, GrantFixture.payload(req), f.present(chain, req));
              });
      Future<?> witnessing =
          others.submit(
              () -> {
                for (int i = 0; i < 20; i++) {
                  s.checkpoint();
                  assertThat(s.witness(first.receipt(), first.envelope()))
                      .isEqualTo(WitnessVerdict.HELD);
                }
                return null;
              });
      serving.awaitSealed(THREADS);
      CyclicBarrier together = new CyclicBarrier(2);
      List<Future<WitnessVerdict>> shown =
          List.of(
              others.submit(() -> showAt(together, s, notRecorded)),
              others.submit(() -> showAt(together, s, notRecorded)));
      for (Future<WitnessVerdict> each : shown) {
        assertThat(each.get(30, TimeUnit.SECONDS)).isEqualTo(WitnessVerdict.NOT_HELD);
      }
      serving.end();
      witnessing.get(30, TimeUnit.SECONDS);
      assertThat(serving.refused)
          .hasSize(THREADS)
          .allSatisfy(e -> assertThat(e).isInstanceOf(GrantsSuspendedException.class));
      remaining = s.spend().remainingUj(chain);
    }

    List<JournalRecord> records = JournalFile.read(journal).records();
    List<Long> suspensions =
        records.stream()
            .filter(r -> r.entry() instanceof JournalEntry.Suspended)
            .map(JournalRecord::seq)
            .toList();
    assertThat(suspensions).as("round %d: suspended once", round).hasSize(1);
    assertThat(records)
        .filteredOn(r -> r.seq() > suspensions.getFirst())
        .as("round %d: no decision after the suspension", round)
        .noneMatch(r -> r.entry() instanceof JournalEntry.Authorised);
    try (Steward again = f.steward(FileJournal.open(journal)).build()) {
      assertThat(again.grantsSuspended()).isPresent();
      assertThat(again.spend().remainingUj(chain)).isEqualTo(remaining);
      assertThat(again.unresolved()).isEmpty();
    }
  }

  private static WitnessVerdict showAt(CyclicBarrier together, Steward s, SealedReceipt shown)
      throws Exception {
    together.await();
    return s.witness(shown.receipt(), shown.envelope());
  }
}
