package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.meshjava.core.EngineException;
import org.meshjava.core.EngineResult;
import org.meshjava.core.ForwardingEngine;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.TokenSequence;
import org.meshjava.receipt.ChainHead;

/** A steward's replay (§6.4) is bounded by its engine deadline, as its serves are. */
@Timeout(30)
class ReplayDeadlineTest {

  /** The honest engine, which hangs in {@code serve} once {@link #hang} is set, until released. */
  static class Hangs extends ForwardingEngine {
    final AtomicBoolean hang = new AtomicBoolean();
    final CountDownLatch release = new CountDownLatch(1);

    Hangs() {
      super(ReplayTest.honest());
    }

    @Override
    public EngineResult serve(ServeRequest request, TokenSequence payload) throws EngineException {
      if (hang.get()) {
        // Stuck as a native call is: the deadline's interrupt does not end the wait.
        boolean interrupted = false;
        while (true) {
          try {
            release.await(20, TimeUnit.SECONDS);
            break;
          } catch (InterruptedException e) {
            interrupted = true;
          }
        }
        if (interrupted) {
          Thread.currentThread().interrupt();
        }
      }
      return super.serve(request, payload);
    }
  }

  /**
   * Regression: {@code Steward.replay} called the engine on the caller's thread with no bound, so a
   * replay of an engine that hung waited for good on a steward whose serves give up after its
   * deadline.
   */
  @Test
  void aReplayWhoseEngineOverrunsTheStewardsDeadline_isTheEngineFailedVerdict() throws Exception {
    Hangs engine = new Hangs();
    try (Steward s = stewardOf(engine, Duration.ofMillis(100))) {
      ReplayInputs inputs = servedOnce(s);
      assertThat(s.replay(inputs, engine)).isInstanceOf(ReplayVerdict.Verified.class);

      engine.hang.set(true);
      try {
        assertThat(s.replay(inputs, engine))
            .isInstanceOfSatisfying(
                ReplayVerdict.NotReplayable.class,
                n -> {
                  assertThat(n.reason()).isEqualTo(ReplayVerdict.Reason.ENGINE_FAILED);
                  assertThat(n.detail()).endsWith("it did not return within 100 ms");
                });
      } finally {
        engine.release.countDown();
      }
      assertThat(s.head().nextSequence()).as("the replay sealed nothing").isEqualTo(1);
    }
  }

  /**
   * Regression: a replay took no slot on its backend, so a replay of a backend that runs one serve
   * at once ran beside its serves, and a hung engine's overrun replays each left a thread running
   * with nothing refused {@code BACKEND_BUSY}. The re-serve now holds a slot until the engine
   * returns, as an overrun serve does.
   */
  @Test
  void aReplayHoldsABackendSlotUntilItsEngineReturns_evenPastTheDeadline() throws Exception {
    Hangs engine =
        new Hangs() {
          @Override
          public int maxConcurrentServes() {
            return 1;
          }

          @Override
          public int maxWaitingServes() {
            return 0;
          }
        };
    try (Steward s = stewardOf(engine, Duration.ofMillis(50))) {
      ReplayInputs inputs = servedOnce(s);
      engine.hang.set(true);
      try {
        assertThat(s.replay(inputs, engine))
            .isInstanceOfSatisfying(
                ReplayVerdict.NotReplayable.class,
                n -> assertThat(n.detail()).endsWith("it did not return within 50 ms"));
        assertThatThrownBy(() -> s.serve(ReplayTest.REQUEST, ReplayTest.PROMPT))
            .as("the overrun replay's engine still runs, in the backend's one slot")
            .isInstanceOfSatisfying(
                ServeException.class,
                e -> assertThat(e.reason()).isEqualTo(ServeException.Reason.BACKEND_BUSY));
        assertThat(s.replay(inputs, engine))
            .isInstanceOfSatisfying(
                ReplayVerdict.NotReplayable.class,
                n -> {
                  assertThat(n.reason()).isEqualTo(ReplayVerdict.Reason.ENGINE_FAILED);
                  assertThat(n.detail())
                      .startsWith(
                          "backend "
                              + s.backendName(engine)
                              + " could not re-serve: BACKEND_BUSY: ")
                      .contains("runs 1 serve(s) at once");
                });
      } finally {
        engine.hang.set(false);
        engine.release.countDown();
      }
      // The engine's return lets the slot go: a replay then runs (no slot leaked).
      ReplayVerdict after = s.replay(inputs, engine);
      for (int i = 0; i < 200 && after instanceof ReplayVerdict.NotReplayable; i++) {
        Thread.sleep(5);
        after = s.replay(inputs, engine);
      }
      assertThat(after).isInstanceOf(ReplayVerdict.Verified.class);
    }
  }

  /** A steward on {@code engine} alone, its serves and replays bounded by {@code deadline}. */
  private static Steward stewardOf(Hangs engine, Duration deadline) {
    return Steward.builder(ReplayTest.KEY)
        .chainHead(ChainHead.GENESIS)
        .meter(new org.meshjava.energy.EstimatorMeter())
        .engineDeadline(deadline)
        .backend(engine)
        .build();
  }

  /** Serves the test's request once on {@code s} and gives what a replay of it needs. */
  private static ReplayInputs servedOnce(Steward s) throws Exception {
    ServeResult r = s.serve(ReplayTest.REQUEST, ReplayTest.PROMPT);
    return new ReplayInputs(
        r.receipt(),
        ReplayTest.REQUEST,
        ReplayTest.PROMPT,
        s.opening(ReplayTest.REQUEST.id()),
        Optional.empty());
  }
}
