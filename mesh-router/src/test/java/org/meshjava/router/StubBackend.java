package org.meshjava.router;

import org.meshjava.core.CostProfile;
import org.meshjava.core.EngineResult;
import org.meshjava.core.Fidelity;
import org.meshjava.core.Recipe;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.ServingEngine;
import org.meshjava.core.TokenSequence;

/** A backend the router can weigh but that never serves. Test support only. */
record StubBackend(String name, Fidelity fidelity, CostProfile costProfile)
    implements ServingEngine {

  static StubBackend of(String name, Fidelity fidelity, long ujPerToken) {
    return new StubBackend(name, fidelity, CostProfile.perToken(ujPerToken));
  }

  @Override
  public Recipe recipe() {
    return Recipe.of(name);
  }

  @Override
  public EngineResult serve(ServeRequest request, TokenSequence prompt) {
    throw new AssertionError("the router never serves");
  }
}
