package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.meshjava.core.EngineException;
import org.meshjava.core.EngineResult;
import org.meshjava.core.ForwardingEngine;
import org.meshjava.core.PromptText;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.ServingEngine;
import org.meshjava.core.TokenSequence;
import org.meshjava.energy.EstimatorMeter;
import org.meshjava.steward.ServeException;
import org.meshjava.steward.ServeResult;
import org.meshjava.steward.Steward;

/**
 * Regression: {@code mesh serve}'s embedded engines admitted one serve per core and queued none, so
 * on a two-core host the third of eight concurrent clients was answered 429 {@code backend_busy}:
 * the ordinary load that issue 21 found refused at upstream backends, refused again at the local
 * ones. Each embedded backend now admits eight clients beyond its cores at once, and still refuses
 * beyond its bound.
 */
class ServeEmbeddedConcurrencyTest {

  /** Holds every serve until released, after counting it in. */
  private static final class Held extends ForwardingEngine {
    final CountDownLatch release = new CountDownLatch(1);
    final Semaphore entered = new Semaphore(0);

    Held(ServingEngine engine) {
      super(engine);
    }

    @Override
    public boolean streams() {
      return false;
    }

    @Override
    public EngineResult serve(ServeRequest request, TokenSequence prompt) throws EngineException {
      entered.release();
      try {
        release.await(30, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return delegate().serve(request, prompt);
    }
  }

  @Test
  void eachEmbeddedBackend_admitsEightClientsBeyondItsCores_andRefusesBeyondItsBound()
      throws Exception {
    for (ServingEngine engine : ServeCommand.embeddedBackends()) {
      int eight = engine.maxConcurrentServes() + 8;
      int bound = engine.maxConcurrentServes() + engine.maxWaitingServes();
      Held held = new Held(engine);
      PromptText prompt = PromptText.of("eight clients at once");
      ServeRequest request =
          ServeRequest.generation(prompt, 4, engine.fidelity(), 10_000_000)
              .withModel(engine.name());
      ExecutorService pool = Executors.newCachedThreadPool();
      try (Steward steward =
          Steward.ephemeral().meter(new EstimatorMeter()).backend(held).build()) {
        List<Future<ServeResult>> served = new ArrayList<>();
        for (int i = 0; i < eight; i++) {
          served.add(pool.submit(() -> steward.serve(request, prompt)));
        }
        awaitEntered(held, eight, served);
        assertThat(held.entered.availablePermits())
            .as("%s: eight clients beyond its %d cores served at once", engine.name(), eight - 8)
            .isEqualTo(eight);
        assertThat(served).as(engine.name()).noneMatch(Future::isDone);
        for (int i = eight; i < bound; i++) {
          served.add(pool.submit(() -> steward.serve(request, prompt)));
        }
        awaitEntered(held, bound, served);
        assertThat(held.entered.availablePermits()).as(engine.name()).isEqualTo(bound);
        assertThatThrownBy(() -> steward.serve(request, prompt))
            .as(engine.name())
            .isInstanceOfSatisfying(
                ServeException.class,
                e -> assertThat(e.reason()).isEqualTo(ServeException.Reason.BACKEND_BUSY));
        held.release.countDown();
        for (Future<ServeResult> f : served) {
          assertThat(f.get(30, TimeUnit.SECONDS).receipt().backend()).isEqualTo(engine.name());
        }
      } finally {
        held.release.countDown();
        pool.shutdownNow();
      }
    }
  }

  /** Waits until {@code n} serves are held, or one of them has ended (refused), or 30 s pass. */
  private static void awaitEntered(Held held, int n, List<Future<ServeResult>> served)
      throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (held.entered.availablePermits() < n
        && served.stream().noneMatch(Future::isDone)
        && System.nanoTime() < deadline) {
      Thread.sleep(5);
    }
  }
}
