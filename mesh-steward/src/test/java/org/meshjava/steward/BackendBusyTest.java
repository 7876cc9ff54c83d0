package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.meshjava.core.CostProfile;
import org.meshjava.core.EngineResult;
import org.meshjava.core.Fidelity;
import org.meshjava.core.PromptText;
import org.meshjava.core.Recipe;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.ServingEngine;
import org.meshjava.core.TokenSequence;
import org.meshjava.engine.ReferenceEngine;

/**
 * A backend that runs one serve at a time with a bounded queue (Jlama's shape): beyond the queue a
 * serve routed to it is refused at once, before any grant is decided, while other backends go on
 * serving.
 */
class BackendBusyTest {

  /** Runs one serve at a time, queues one more, and holds each serve until released. */
  static final class OneAtATime implements ServingEngine {
    final CountDownLatch release = new CountDownLatch(1);
    final CountDownLatch entered = new CountDownLatch(1);

    /**
     * Counted down by each serve that reaches the engine, before it waits for the one running: a
     * serve that got here holds a slot, running or waiting.
     */
    final CountDownLatch arrived = new CountDownLatch(2);

    final ReferenceEngine inner =
        ReferenceEngine.builder()
            .name("serial")
            .fidelity(Fidelity.F3)
            .costProfile(CostProfile.perToken(1))
            .build();

    @Override
    public String name() {
      return "serial";
    }

    @Override
    public Recipe recipe() {
      return Recipe.of("serial");
    }

    @Override
    public Fidelity fidelity() {
      return Fidelity.F3;
    }

    @Override
    public CostProfile costProfile() {
      return CostProfile.perToken(1);
    }

    @Override
    public int maxConcurrentServes() {
      return 1;
    }

    @Override
    public int maxWaitingServes() {
      return 1;
    }

    @Override
    public EngineResult serve(ServeRequest request, TokenSequence prompt) {
      arrived.countDown();
      synchronized (this) {
        entered.countDown();
        try {
          release.await(20, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
        return inner.serve(request, prompt);
      }
    }
  }

  @Test
  void beyondTheQueue_aServeIsRefusedBusy_andOtherBackendsStillServe() throws Exception {
    OneAtATime serial = new OneAtATime();
    Steward s = DecisionServeTest.steward(serial, DecisionServeTest.engine());
    PromptText prompt = PromptText.of("hello");
    ServeRequest toSerial = ServeRequest.generation(prompt, 4, Fidelity.F3, 1_000_000);
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      Future<ServeResult> running = pool.submit(() -> s.serve(toSerial, prompt));
      assertThat(serial.entered.await(10, TimeUnit.SECONDS)).isTrue();
      Future<ServeResult> queued = pool.submit(() -> s.serve(toSerial, prompt));
      assertThat(serial.arrived.await(10, TimeUnit.SECONDS))
          .as("the second serve took the queue's one slot")
          .isTrue();
      ServeException busy = null;
      try {
        s.serve(toSerial, prompt);
      } catch (ServeException e) {
        busy = e;
      }
      assertThat(busy).isNotNull();
      assertThat(busy.reason()).isEqualTo(ServeException.Reason.BACKEND_BUSY);
      // Another backend serves meanwhile.
      ServeRequest toOther =
          ServeRequest.generation(prompt, 4, Fidelity.F1, 1_000_000).withModel("reference");
      assertThat(s.serve(toOther, prompt).receipt().backend()).isEqualTo("reference");
      serial.release.countDown();
      assertThat(running.get(20, TimeUnit.SECONDS).receipt().backend()).isEqualTo("serial");
      assertThat(queued.get(20, TimeUnit.SECONDS).receipt().backend()).isEqualTo("serial");
      // Slots are released: it serves again.
      assertThat(s.serve(toSerial, prompt).receipt().backend()).isEqualTo("serial");
    } finally {
      serial.release.countDown();
      pool.shutdownNow();
    }
  }
}
