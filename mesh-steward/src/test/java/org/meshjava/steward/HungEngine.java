package org.meshjava.steward;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.meshjava.core.EngineException;
import org.meshjava.core.EngineResult;
import org.meshjava.core.ForwardingEngine;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.TokenSequence;
import org.meshjava.core.TokenSink;
import org.meshjava.engine.ReferenceEngine;

/**
 * A backend that declares no bound on its serves and whose every call, until {@link #release} is
 * counted down, first runs {@link #during} and then waits for the release through interrupts (it
 * ignores them, as a stuck native call does); then it serves as the reference engine. Test support
 * only.
 */
class HungEngine extends ForwardingEngine {
  final CountDownLatch release = new CountDownLatch(1);
  final AtomicInteger entered = new AtomicInteger();

  HungEngine(String name) {
    super(ReferenceEngine.builder().name(name).build());
  }

  /** Runs on the engine's thread as each held call begins. */
  void during() {}

  @Override
  public EngineResult serve(ServeRequest request, TokenSequence prompt) throws EngineException {
    hold();
    return delegate().serve(request, prompt);
  }

  @Override
  public EngineResult serve(ServeRequest request, TokenSequence prompt, TokenSink sink)
      throws EngineException {
    hold();
    return delegate().serve(request, prompt, sink);
  }

  private void hold() {
    if (release.getCount() == 0) {
      return;
    }
    entered.incrementAndGet();
    during();
    awaitThroughInterrupts(release);
  }

  /**
   * Waits for {@code release} as a stuck native call would, ignoring interrupts, and sets the
   * interrupt again once released if one came.
   */
  static void awaitThroughInterrupts(CountDownLatch release) {
    boolean interrupted = false;
    while (true) {
      try {
        release.await();
        break;
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }
}
