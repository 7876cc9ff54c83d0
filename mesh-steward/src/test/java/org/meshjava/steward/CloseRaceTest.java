package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.core.ServeRequest;
import org.meshjava.jcp.DebitResult;
import org.meshjava.jcp.GrantChain;
import org.meshjava.journal.FileJournal;
import org.meshjava.steward.observe.JournalWrite;
import org.meshjava.steward.observe.ServeObserver;
import org.meshjava.steward.observe.ServeStarted;
import org.meshjava.steward.observe.StewardListener;

/**
 * The steward's close raced from several threads at once while serves run, and a close while a
 * listener blocks in every callback (which its contract asks it never to do): every close returns,
 * and every serve is settled exactly once, nothing debited twice and nothing left held.
 */
@Timeout(60)
class CloseRaceTest {
  private static final int THREADS = 4;
  private static final int CLOSERS = 3;
  private static final long BUDGET_UJ = 1_000_000_000;
  private static final long CEILING_UJ = 70_000;

  final GrantFixture f = new GrantFixture();
  @TempDir Path dir;

  /**
   * Several closes at once, with the grace long enough for every admitted serve to finish: each
   * close returns, the serves admitted are each sealed and debited once (the restarted steward
   * finds exactly their receipts' joules spent and nothing unresolved), and the rest are refused as
   * a closed steward's.
   */
  @Test
  void concurrentCloses_whileServing_allReturn_andSettleEachServeOnce() throws Exception {
    Path journal = dir.resolve("race.journal");
    GrantChain chain = f.chain(BUDGET_UJ);
    Steward s = f.steward(FileJournal.open(journal)).build();
    ServingPool serving =
        ServingPool.start(THREADS, ServingPool.halfGranted(f, s, chain, "race", CEILING_UJ));
    serving.awaitSealed(THREADS * 2);
    CyclicBarrier together = new CyclicBarrier(CLOSERS);
    List<Thread> closers = new ArrayList<>();
    for (int c = 0; c < CLOSERS; c++) {
      closers.add(
          Thread.ofPlatform()
              .start(
                  () -> {
                    try {
                      together.await(10, TimeUnit.SECONDS);
                    } catch (Exception e) {
                      throw new IllegalStateException(e);
                    }
                    s.close();
                  }));
    }
    for (Thread c : closers) {
      assertThat(c.join(Duration.ofSeconds(20))).as("a close returned").isTrue();
    }
    serving.end();

    assertThat(serving.refused)
        .allSatisfy(e -> assertThat(e).isInstanceOf(StewardClosedException.class));
    long debitedBySealed = serving.grantedJoules();
    try (Steward again = f.steward(FileJournal.open(journal)).build()) {
      assertThat(again.head().nextSequence()).isEqualTo(serving.handedOut.size());
      assertThat(again.unresolved()).isEmpty();
      assertThat(BUDGET_UJ - again.spend().remainingUj(chain)).isEqualTo(debitedBySealed);
    }
  }

  /**
   * A listener that blocks in every callback holds its serve (it is called on the serving thread),
   * but not the close past its grace; released, the serve ends as a cut one does, and the journal
   * the close left replays with the grant settled or held, never debited twice.
   */
  @Test
  void aListenerBlockingInEveryCallback_doesNotHoldTheClosePastItsGrace() throws Exception {
    Path journal = dir.resolve("blocked.journal");
    GrantChain chain = f.chain(BUDGET_UJ);
    CountDownLatch release = new CountDownLatch(1);
    CountDownLatch blocked = new CountDownLatch(1);
    StewardListener blocking =
        new StewardListener() {
          void block() {
            blocked.countDown();
            try {
              release.await(20, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          }

          @Override
          public ServeObserver serveStarted(ServeStarted serve) {
            block();
            return ServeObserver.NONE;
          }

          @Override
          public void debited(DebitResult debit) {
            block();
          }

          @Override
          public void journalWritten(JournalWrite write) {
            block();
          }
        };
    Steward s =
        f.steward(FileJournal.open(journal))
            .listener(blocking)
            .closeGrace(Duration.ofMillis(200))
            .build();
    ServeRequest req = GrantFixture.request("blocked", 4, CEILING_UJ);
    Thread serving =
        Thread.ofPlatform()
            .start(
                () -> {
                  try {
                    s.serve(req, GrantFixture.payload(req), f.present(chain, req));
                  } catch (Exception refused) {
                    // cut by the close: either outcome is checked through the journal below
                  }
                });
    assertThat(blocked.await(10, TimeUnit.SECONDS)).isTrue();

    long start = System.nanoTime();
    s.close();
    long closedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    release.countDown();
    assertThat(serving.join(Duration.ofSeconds(20))).isTrue();

    assertThat(closedMs).as("the close waited only its grace").isLessThan(10_000);
    try (Steward again = f.steward(FileJournal.open(journal)).build()) {
      long spent = BUDGET_UJ - again.spend().remainingUj(chain);
      assertThat(spent).isBetween(0L, CEILING_UJ);
    }
  }
}
