package org.meshjava.spring;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import org.meshjava.core.EngineException;
import org.meshjava.core.EngineResult;
import org.meshjava.core.Fidelity;
import org.meshjava.core.ForwardingEngine;
import org.meshjava.core.PromptText;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.TokenSequence;
import org.meshjava.engine.ReferenceEngine;
import org.meshjava.steward.Steward;

/**
 * A reference engine whose serves, once started ({@link #running}), wait until the test lets them
 * go ({@link #release}): a serve held in flight, for the properties that bound how long the steward
 * waits for one (its close grace, its engine deadline).
 */
final class HeldEngine extends ForwardingEngine {
  final CountDownLatch running = new CountDownLatch(1);
  final CountDownLatch release = new CountDownLatch(1);

  HeldEngine(String name) {
    super(ReferenceEngine.builder().name(name).build());
  }

  @Override
  public EngineResult serve(ServeRequest r, TokenSequence p) throws EngineException {
    running.countDown();
    try {
      release.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return super.serve(r, p);
  }

  /** A small serve of {@code words} on {@code steward}, run on one of {@code threads}. */
  static Future<?> serveOn(ExecutorService threads, Steward steward, String words) {
    PromptText prompt = PromptText.of(words);
    return threads.submit(
        () -> steward.serve(ServeRequest.generation(prompt, 4, Fidelity.F0, 1_000_000), prompt));
  }
}
