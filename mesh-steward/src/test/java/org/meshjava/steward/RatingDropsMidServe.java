package org.meshjava.steward;

import org.meshjava.core.EngineException;
import org.meshjava.core.EngineResult;
import org.meshjava.core.Fidelity;
import org.meshjava.core.ForwardingEngine;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.ServingEngine;
import org.meshjava.core.TokenSequence;
import org.meshjava.engine.ReferenceEngine;

/**
 * A backend whose advertised rating drops while it serves: admitted at the reference engine's
 * rating, it advertises {@code after} once its work has begun. The reference engine inside does the
 * work and reports whatever delivered level it was built with. Nothing in {@link ServingEngine}
 * promises a constant rating, so the steward must seal against the rating the router admitted on.
 */
final class RatingDropsMidServe extends ForwardingEngine {
  private final Fidelity after;
  private volatile boolean served;

  RatingDropsMidServe(ReferenceEngine inner, Fidelity after) {
    super(inner);
    this.after = after;
  }

  @Override
  public Fidelity fidelity() {
    return served ? after : delegate().fidelity();
  }

  @Override
  public EngineResult serve(ServeRequest request, TokenSequence prompt) throws EngineException {
    served = true;
    return delegate().serve(request, prompt);
  }
}
