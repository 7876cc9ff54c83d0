package org.meshjava.conformance.pack.internal;

import java.util.Optional;
import org.meshjava.core.CostProfile;
import org.meshjava.core.EngineException;
import org.meshjava.core.EngineResult;
import org.meshjava.core.Fidelity;
import org.meshjava.core.Recipe;
import org.meshjava.core.ServeOutcome;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.ServingEngine;
import org.meshjava.core.TokenSequence;
import org.meshjava.core.WeightsBinding;

/**
 * An engine whose re-run output a replay case states outright ({@code replay} op, {@code rerun}),
 * so that the replay verdict rules of §6.4 can be tested apart from any token algorithm.
 */
record ScriptedEngine(
    String name,
    Recipe recipe,
    boolean deterministic,
    Optional<WeightsBinding> weights,
    Optional<TokenSequence> output)
    implements ServingEngine {

  @Override
  public Fidelity fidelity() {
    return Fidelity.F0;
  }

  @Override
  public CostProfile costProfile() {
    return CostProfile.perToken(0);
  }

  @Override
  public EngineResult serve(ServeRequest request, TokenSequence prompt) throws EngineException {
    TokenSequence tokens =
        output.orElseThrow(() -> new EngineException("the case says this re-run fails"));
    return new EngineResult(
        tokens,
        new ServeOutcome(
            prompt.size(),
            tokens.size(),
            tokens.size(),
            0,
            0,
            0,
            Optional.empty(),
            Optional.empty()));
  }
}
