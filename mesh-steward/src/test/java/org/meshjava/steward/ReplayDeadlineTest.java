package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;

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
  static final class Hangs extends ForwardingEngine {
    final AtomicBoolean hang = new AtomicBoolean();
    final CountDownLatch release = new CountDownLatch(1);

    Hangs() {
      super(ReplayTest.honest());
    }

    @Override
    public EngineResult serve(ServeRequest request, TokenSequence payload) throws EngineException {
      if (hang.get()) {
        try {
          release.await(20, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
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
    try (Steward s =
        Steward.builder(ReplayTest.KEY)
            .chainHead(ChainHead.GENESIS)
            .meter(new org.meshjava.energy.EstimatorMeter())
            .engineDeadline(Duration.ofMillis(100))
            .backend(engine)
            .build()) {
      ServeResult r = s.serve(ReplayTest.REQUEST, ReplayTest.PROMPT);
      ReplayInputs inputs =
          new ReplayInputs(
              r.receipt(),
              ReplayTest.REQUEST,
              ReplayTest.PROMPT,
              s.opening(ReplayTest.REQUEST.id()),
              Optional.empty());
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
}
