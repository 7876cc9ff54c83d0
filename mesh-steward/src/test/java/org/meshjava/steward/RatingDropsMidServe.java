package org.meshjava.steward;

import org.meshjava.core.CostProfile;
import org.meshjava.core.EngineException;
import org.meshjava.core.EngineResult;
import org.meshjava.core.Fidelity;
import org.meshjava.core.Recipe;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.ServingEngine;
import org.meshjava.core.TokenSequence;
import org.meshjava.engine.ReferenceEngine;

/**
 * A backend whose advertised rating drops while it serves: admitted at {@code before}, it
 * advertises {@code after} once its work has begun. The reference engine inside does the work and
 * reports whatever delivered level it was built with. Nothing in {@link ServingEngine} promises a
 * constant rating, so the steward must seal against the rating the router admitted on.
 */
final class RatingDropsMidServe implements ServingEngine {
  private final ReferenceEngine inner;
  private final Fidelity after;
  private volatile Fidelity rating;

  RatingDropsMidServe(ReferenceEngine inner, Fidelity after) {
    this.inner = inner;
    this.after = after;
    this.rating = inner.fidelity();
  }

  @Override
  public String name() {
    return inner.name();
  }

  @Override
  public Recipe recipe() {
    return inner.recipe();
  }

  @Override
  public Fidelity fidelity() {
    return rating;
  }

  @Override
  public CostProfile costProfile() {
    return inner.costProfile();
  }

  @Override
  public EngineResult serve(ServeRequest request, TokenSequence prompt) throws EngineException {
    rating = after;
    return inner.serve(request, prompt);
  }
}
