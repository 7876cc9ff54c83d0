package org.meshjava.steward;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Objects;
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
 * A backend whose answer a test scripts, and which notes {@code "serve"} in a shared event list so
 * a test can see where the engine ran relative to the meter. Test support only.
 */
final class ScriptedEngine implements ServingEngine {

  /** What the engine does when served. */
  @FunctionalInterface
  interface Behaviour {
    EngineResult serve(ServeRequest request, TokenSequence prompt) throws EngineException;
  }

  private final String name;
  private final Fidelity fidelity;
  private final CostProfile cost;
  private final Behaviour behaviour;
  private final List<String> events;
  private final Deque<Optional<WeightsBinding>> weights = new ArrayDeque<>();
  private volatile int serves;

  ScriptedEngine(
      String name, Fidelity fidelity, long ujPerToken, List<String> events, Behaviour behaviour) {
    this.name = name;
    this.fidelity = fidelity;
    this.cost = CostProfile.perToken(ujPerToken);
    this.events = events;
    this.behaviour = Objects.requireNonNull(behaviour);
  }

  /** A greedy engine that emits {@code max_tokens} tokens 0, 1, 2, … and reports nothing more. */
  static Behaviour greedy() {
    return (request, prompt) -> {
      int n = (int) request.maxTokens();
      int[] ids = new int[n];
      for (int i = 0; i < n; i++) {
        ids[i] = i;
      }
      return new EngineResult(TokenSequence.of(ids), ServeOutcome.greedy(prompt.size(), n));
    };
  }

  /** Reports {@code weights} for successive calls of {@link #weights()}; the last one sticks. */
  ScriptedEngine reportingWeights(List<Optional<WeightsBinding>> answers) {
    weights.addAll(answers);
    return this;
  }

  int serves() {
    return serves;
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public Recipe recipe() {
    return Recipe.of(name + "-base").with("adapter");
  }

  @Override
  public Fidelity fidelity() {
    return fidelity;
  }

  @Override
  public CostProfile costProfile() {
    return cost;
  }

  @Override
  public synchronized Optional<WeightsBinding> weights() {
    if (weights.isEmpty()) {
      return Optional.empty();
    }
    return weights.size() == 1 ? weights.peek() : weights.poll();
  }

  @Override
  public EngineResult serve(ServeRequest request, TokenSequence prompt) throws EngineException {
    serves++;
    if (events != null) {
      events.add("serve");
    }
    return behaviour.serve(request, prompt);
  }
}
