package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.core.EngineException;
import org.meshjava.core.EngineResult;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.TokenSequence;
import org.meshjava.engine.ReferenceEngine;
import org.meshjava.jcp.GrantChain;
import org.meshjava.journal.FileJournal;

/**
 * An engine that never returns (a hung upstream, a deadlocked model runtime). By default the
 * steward sets no deadline on an engine ({@link EngineDeadlineTest} has one): what bounds the harm
 * is that no steward lock is held while an engine runs (the decision lock and the chain's lock are
 * taken only around journal ordering and the seal), the engine's own slots ({@link
 * org.meshjava.core.ServingEngine#maxConcurrentServes()} and {@code maxWaitingServes()}), and the
 * close's grace. So other backends and other grants serve on, the stuck backend refuses more than
 * its slots hold {@code BACKEND_BUSY}, and a close returns after its grace with the stuck serve's
 * grant held at its ceiling for a later steward to resolve.
 */
@Timeout(60)
class BlockedEngineTest {
  final GrantFixture f = new GrantFixture();
  @TempDir Path dir;
  final ExecutorService threads = Executors.newCachedThreadPool();
  final CountDownLatch running = new CountDownLatch(1);
  final CountDownLatch never = new CountDownLatch(1);

  @AfterEach
  void stop() {
    never.countDown();
    threads.shutdownNow();
  }

  /** Serves under the name "stuck", one at a time with no queue, and never returns from one. */
  StewardGrantTest.OneAtATime stuck() {
    return new StewardGrantTest.OneAtATime(ReferenceEngine.builder().name("stuck").build()) {
      @Override
      public EngineResult serve(ServeRequest r, TokenSequence p) throws EngineException {
        running.countDown();
        try {
          never.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
        return super.serve(r, p);
      }
    };
  }

  @Test
  void aHungEngine_holdsNoStewardLock_fillsOnlyItsOwnSlots_andTheCloseIsBoundedByItsGrace()
      throws Exception {
    GrantChain chain = f.chain(1_000_000);
    Path journal = dir.resolve("steward.journal");
    Steward s =
        f.steward(FileJournal.open(journal))
            .backend(stuck())
            .closeGrace(Duration.ofMillis(100))
            .build();
    ServeRequest hung = GrantFixture.request("hangs", 4, 70_000).withModel("stuck");
    Future<ServeResult> hanging =
        threads.submit(() -> s.serve(hung, GrantFixture.payload(hung), f.present(chain, hung)));
    assertThat(running.await(10, TimeUnit.SECONDS)).isTrue();

    // The same grant, another backend: decided, run, debited and sealed past the hung serve.
    for (int i = 0; i < 3; i++) {
      ServeRequest other =
          GrantFixture.request("served meanwhile " + i, 4, 70_000).withModel("ref");
      ServeResult r = s.serve(other, GrantFixture.payload(other), f.present(chain, other));
      assertThat(r.receipt().sequence()).isEqualTo(i);
    }
    assertThat(s.checkpoint()).isPresent();
    ServeRequest more = GrantFixture.request("one more", 4, 70_000).withModel("stuck");
    assertThatThrownBy(() -> s.serve(more, GrantFixture.payload(more)))
        .isInstanceOfSatisfying(
            ServeException.class,
            e -> assertThat(e.reason()).isEqualTo(ServeException.Reason.BACKEND_BUSY));

    s.close(); // returns once its grace has run out
    assertThat(hanging).isNotDone();
    try (Steward again = f.steward(FileJournal.open(journal)).build()) {
      assertThat(again.head().nextSequence()).isEqualTo(3);
      assertThat(again.unresolved())
          .singleElement()
          .satisfies(u -> assertThat(u.ceilingUj()).isEqualTo(70_000L));
    }
  }
}
