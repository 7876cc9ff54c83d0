package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.core.ServeRequest;
import org.meshjava.jcp.GrantChain;
import org.meshjava.journal.FileJournal;

/**
 * {@link Steward#close()} from one thread while an application's pool serves on others, granted and
 * ungranted, over a file journal, with no grace ({@code mesh serve}'s) and with a long one. Each
 * round lines the serving threads up on a barrier, closes once some receipts are sealed, and then
 * checks what §2.2 asks: every serve either hands out a receipt or is refused {@code NOT_RECORDED},
 * none hangs, the journal replays clean, it holds exactly the receipts handed out, nothing is
 * written to it once the close has returned, and no grant is debited more than its serves can
 * account for.
 */
@Timeout(120)
class CloseWhileServingTest {
  private static final int THREADS = 4;
  private static final long BUDGET_UJ = 1_000_000_000;
  private static final long CEILING_UJ = 70_000;

  final GrantFixture f = new GrantFixture();
  @TempDir Path dir;
  final ExecutorService pool = Executors.newFixedThreadPool(THREADS);

  @AfterEach
  void stop() {
    pool.shutdownNow();
  }

  @Test
  void closeWithServesInFlight_sealsOrRefusesEach_andLeavesAJournalThatReplays() throws Exception {
    rounds(8);
  }

  @Test
  @Tag("slow")
  void closeWithServesInFlight_manyRounds() throws Exception {
    rounds(1000);
  }

  private void rounds(int rounds) throws Exception {
    for (int round = 0; round < rounds; round++) {
      round(round, round % 2 == 0 ? Duration.ZERO : Duration.ofSeconds(30));
    }
  }

  private void round(int round, Duration grace) throws Exception {
    Path journal = dir.resolve("round-" + round + ".journal");
    GrantChain chain = f.chain(BUDGET_UJ);
    Steward s = f.steward(FileJournal.open(journal)).closeGrace(grace).build();
    CyclicBarrier start = new CyclicBarrier(THREADS + 1);
    AtomicInteger sealed = new AtomicInteger();
    ConcurrentLinkedQueue<ServeResult> handedOut = new ConcurrentLinkedQueue<>();
    ConcurrentLinkedQueue<ServeException> refused = new ConcurrentLinkedQueue<>();
    List<Future<?>> serving = new ArrayList<>();
    for (int t = 0; t < THREADS; t++) {
      int thread = t;
      serving.add(
          pool.submit(
              () -> {
                start.await();
                for (int i = 0; ; i++) {
                  ServeRequest req =
                      GrantFixture.request(round + "/" + thread + "/" + i, 4, CEILING_UJ);
                  try {
                    ServeResult r =
                        i % 2 == 0
                            ? s.serve(req, GrantFixture.payload(req), f.present(chain, req))
                            : s.serve(req, GrantFixture.payload(req));
                    handedOut.add(r);
                    sealed.incrementAndGet();
                  } catch (ServeException e) {
                    refused.add(e);
                    return null;
                  }
                }
              }));
    }
    start.await();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (sealed.get() < THREADS * 2 && System.nanoTime() < deadline) {
      Thread.onSpinWait();
    }
    s.close();
    long lengthAtClose = Files.size(journal);
    for (Future<?> each : serving) {
      each.get(30, TimeUnit.SECONDS); // none hangs; none throws anything but a ServeException
    }

    assertThat(refused)
        .as("round %d: every refusal is one a closed steward gives", round)
        .hasSize(THREADS)
        .allSatisfy(e -> assertThat(e.reason()).isEqualTo(ServeException.Reason.NOT_RECORDED));
    assertThat(Files.size(journal))
        .as("nothing written after close returned")
        .isEqualTo(lengthAtClose);
    List<Long> sequences = handedOut.stream().map(r -> r.receipt().sequence()).sorted().toList();
    assertThat(sequences)
        .as("round %d: the receipts handed out form one chain from 0", round)
        .containsExactlyElementsOf(
            java.util.stream.LongStream.range(0, sequences.size()).boxed().toList());
    long debitedBySealed =
        handedOut.stream()
            .filter(r -> r.receipt().grantId().isPresent())
            .mapToLong(r -> r.receipt().energy().uj())
            .sum();
    try (Steward again = f.steward(FileJournal.open(journal)).build()) {
      assertThat(again.head().nextSequence())
          .as("round %d: the journal holds exactly the receipts handed out", round)
          .isEqualTo(sequences.size());
      long spent = BUDGET_UJ - again.spend().remainingUj(chain);
      // A granted serve refused after its engine ran is debited (or held at its ceiling) with no
      // receipt; at most one per thread was refused.
      assertThat(spent).isBetween(debitedBySealed, debitedBySealed + THREADS * CEILING_UJ);
    }
  }
}
