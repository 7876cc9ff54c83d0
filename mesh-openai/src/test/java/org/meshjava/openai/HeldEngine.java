package org.meshjava.openai;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.meshjava.core.CostProfile;
import org.meshjava.core.EngineResult;
import org.meshjava.core.Fidelity;
import org.meshjava.core.Recipe;
import org.meshjava.core.ServeOutcome;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.ServingEngine;
import org.meshjava.core.TokenSequence;

/** A cheap backend that holds each serve until released; its limit is set per test. */
final class HeldEngine implements ServingEngine {
  final int limit;
  final CountDownLatch entered;
  final CountDownLatch release = new CountDownLatch(1);

  /** Whether a serve's thread was interrupted while it was held (it then serves at once). */
  final java.util.concurrent.atomic.AtomicBoolean interrupted =
      new java.util.concurrent.atomic.AtomicBoolean();

  HeldEngine(int limit, int expected) {
    this.limit = limit;
    this.entered = new CountDownLatch(expected);
  }

  @Override
  public String name() {
    return "held";
  }

  @Override
  public Recipe recipe() {
    return Recipe.of("held");
  }

  @Override
  public Fidelity fidelity() {
    return Fidelity.F0;
  }

  @Override
  public CostProfile costProfile() {
    return CostProfile.perToken(1);
  }

  @Override
  public int maxConcurrentServes() {
    return limit;
  }

  @Override
  public int maxWaitingServes() {
    return 0;
  }

  @Override
  public EngineResult serve(ServeRequest request, TokenSequence prompt) {
    entered.countDown();
    try {
      release.await(20, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      interrupted.set(true);
      Thread.currentThread().interrupt();
    }
    return new EngineResult(TokenSequence.of(1), ServeOutcome.greedy(prompt.size(), 1));
  }
}
