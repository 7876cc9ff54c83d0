package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.meshjava.core.ServeRequest;
import org.meshjava.journal.InMemoryJournal;

/**
 * The overrun bound of a backend that declares no bound ({@link BackendSlots#UNDECLARED_OVERRUNS})
 * under many threads at once. It is checked when a serve is admitted: a call already admitted when
 * the bound is reached runs, and a thread nothing can stop is left behind for it too. So the calls
 * left running number at most the bound plus the serves in flight on the backend when it was
 * reached, less the one that reached it; after that, no serve reaches the engine until they return.
 * The threads serving are the caller's, so this still bounds what a hung backend keeps.
 */
@Timeout(120)
class UndeclaredOverrunManyThreadsTest {
  private static final int THREADS = 16;

  private final GrantFixture f = new GrantFixture();
  private final HungEngine hung = new HungEngine("hung");
  private final ExecutorService pool = Executors.newFixedThreadPool(THREADS);

  @AfterEach
  void release() {
    hung.release.countDown();
    pool.shutdownNow();
  }

  @Test
  void manyThreadsServingAHungBackend_leaveAtMostTheBoundPlusTheThreadsInFlight() throws Exception {
    try (Steward s =
        f.steward(new InMemoryJournal())
            .backend(hung)
            .engineDeadline(EngineDeadlineTest.DEADLINE)
            .closeGrace(Duration.ZERO)
            .build()) {
      CyclicBarrier start = new CyclicBarrier(THREADS);
      List<Future<int[]>> served = new ArrayList<>();
      for (int t = 0; t < THREADS; t++) {
        int thread = t;
        served.add(
            pool.submit(
                () -> {
                  start.await();
                  int overran = 0;
                  for (int i = 0; ; i++) {
                    ServeRequest r =
                        GrantFixture.request("t" + thread + " " + i, 4, 70_000).withModel("hung");
                    try {
                      s.serve(r, GrantFixture.payload(r));
                      return new int[] {overran, 1};
                    } catch (ServeException e) {
                      if (e.reason() == ServeException.Reason.BACKEND_BUSY) {
                        return new int[] {overran, 0};
                      }
                      assertThat(e.reason()).isEqualTo(ServeException.Reason.ENGINE_FAILED);
                      overran++;
                    }
                  }
                }));
      }
      int overran = 0;
      for (Future<int[]> r : served) {
        int[] outcome = r.get(60, TimeUnit.SECONDS);
        assertThat(outcome[1]).as("no serve of the hung backend returned a receipt").isZero();
        overran += outcome[0];
      }
      assertThat(overran)
          .as("calls left running: the bound, plus the serves in flight when it was reached")
          .isGreaterThanOrEqualTo(BackendSlots.UNDECLARED_OVERRUNS)
          .isLessThanOrEqualTo(BackendSlots.UNDECLARED_OVERRUNS + THREADS - 1);

      hung.release.countDown();
      EngineDeadlineTest.joinEngineThreads();
      ServeRequest after = GrantFixture.request("after", 4, 70_000).withModel("hung");
      assertThat(s.serve(after, GrantFixture.payload(after)).receipt().backend()).isEqualTo("hung");
    }
  }
}
