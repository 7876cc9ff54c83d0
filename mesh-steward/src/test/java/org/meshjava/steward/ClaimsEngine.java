package org.meshjava.steward;

import java.util.List;
import java.util.Optional;
import java.util.function.UnaryOperator;
import org.meshjava.core.CostProfile;
import org.meshjava.core.DecisionEngine;
import org.meshjava.core.DecisionQuestion;
import org.meshjava.core.DecisionResult;
import org.meshjava.core.DescribedEngine;
import org.meshjava.core.EngineException;
import org.meshjava.core.EngineResult;
import org.meshjava.core.Fidelity;
import org.meshjava.core.Recipe;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.ServingEngine;
import org.meshjava.core.TokenSequence;
import org.meshjava.core.WeightsBinding;
import org.meshjava.engine.ReferenceEngine;

/**
 * A test engine over the reference engine whose identity, determinism, weights and output can be
 * varied one at a time, to exercise each replay and decision rule.
 */
final class ClaimsEngine implements DecisionEngine {
  private final ReferenceEngine inner;
  private final String name;
  private final Recipe recipe;
  private final boolean deterministic;
  private final Optional<WeightsBinding> weights;
  private final UnaryOperator<TokenSequence> output;
  private final UnaryOperator<DecisionResult> decisions;
  private final boolean fails;

  private ClaimsEngine(
      ReferenceEngine inner,
      String name,
      Recipe recipe,
      boolean deterministic,
      Optional<WeightsBinding> weights,
      UnaryOperator<TokenSequence> output,
      UnaryOperator<DecisionResult> decisions,
      boolean fails) {
    this.inner = inner;
    this.name = name;
    this.recipe = recipe;
    this.deterministic = deterministic;
    this.weights = weights;
    this.output = output;
    this.decisions = decisions;
    this.fails = fails;
  }

  static ClaimsEngine over(ReferenceEngine inner) {
    return new ClaimsEngine(
        inner, inner.name(), inner.recipe(), true, inner.weights(), t -> t, d -> d, false);
  }

  ClaimsEngine named(String v) {
    return new ClaimsEngine(inner, v, recipe, deterministic, weights, output, decisions, fails);
  }

  ClaimsEngine recipe(Recipe v) {
    return new ClaimsEngine(inner, name, v, deterministic, weights, output, decisions, fails);
  }

  ClaimsEngine sampling() {
    return new ClaimsEngine(inner, name, recipe, false, weights, output, decisions, fails);
  }

  ClaimsEngine weights(Optional<WeightsBinding> v) {
    return new ClaimsEngine(inner, name, recipe, deterministic, v, output, decisions, fails);
  }

  ClaimsEngine output(UnaryOperator<TokenSequence> v) {
    return new ClaimsEngine(inner, name, recipe, deterministic, weights, v, decisions, fails);
  }

  ClaimsEngine decisions(UnaryOperator<DecisionResult> v) {
    return new ClaimsEngine(inner, name, recipe, deterministic, weights, output, v, fails);
  }

  ClaimsEngine failing() {
    return new ClaimsEngine(inner, name, recipe, deterministic, weights, output, decisions, true);
  }

  /** Replaces token {@code index} (or drops the tail from it when {@code drop}). */
  static UnaryOperator<TokenSequence> drift(int index, boolean drop) {
    return t -> {
      int[] ids = t.toArray();
      if (drop) {
        return TokenSequence.of(java.util.Arrays.copyOf(ids, index));
      }
      ids[index] = ids[index] + 1;
      return TokenSequence.of(ids);
    };
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public Recipe recipe() {
    return recipe;
  }

  @Override
  public Fidelity fidelity() {
    return inner.fidelity();
  }

  @Override
  public CostProfile costProfile() {
    return inner.costProfile();
  }

  @Override
  public boolean deterministic() {
    return deterministic;
  }

  @Override
  public Optional<WeightsBinding> weights() {
    return weights;
  }

  @Override
  public EngineResult serve(ServeRequest request, TokenSequence prompt) throws EngineException {
    if (fails) {
      throw new EngineException("out of memory");
    }
    EngineResult r = inner.serve(request, prompt);
    TokenSequence t = output.apply(r.tokens());
    return new EngineResult(
        t,
        new org.meshjava.core.ServeOutcome(
            r.outcome().tokensIn(),
            t.size(),
            t.size(),
            0,
            0,
            0,
            r.outcome().deliveredFidelity(),
            r.outcome().decision()));
  }

  @Override
  public DecisionResult decide(
      ServeRequest request, TokenSequence prompt, List<DecisionQuestion> questions)
      throws EngineException {
    return decisions.apply(inner.decide(request, prompt, questions));
  }

  /** An engine that serves but cannot answer typed questions. */
  static ServingEngine tokensOnly(ReferenceEngine inner) {
    return new DescribedEngine(inner.descriptor()) {
      @Override
      public EngineResult serve(ServeRequest request, TokenSequence prompt) {
        return inner.serve(request, prompt);
      }
    };
  }
}
