package org.meshjava.core;

import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;

/**
 * An engine that forwards every method to another: the base of a decorator, which overrides only
 * what it changes (a serve that fails, weights that drift, a name of its own). Both serve methods
 * are forwarded, so a decorator that changes what is served overrides both, or {@link #streams()}
 * and the one it changes. As thread-safe as the engine it forwards to and its own overrides.
 */
public abstract class ForwardingEngine implements ServingEngine {
  private final ServingEngine delegate;

  /** A decorator of {@code delegate}. */
  protected ForwardingEngine(ServingEngine delegate) {
    this.delegate = Objects.requireNonNull(delegate, "delegate");
  }

  /** The engine forwarded to. */
  protected final ServingEngine delegate() {
    return delegate;
  }

  @Override
  public String name() {
    return delegate.name();
  }

  @Override
  public Recipe recipe() {
    return delegate.recipe();
  }

  @Override
  public Fidelity fidelity() {
    return delegate.fidelity();
  }

  @Override
  public CostProfile costProfile() {
    return delegate.costProfile();
  }

  @Override
  public boolean deterministic() {
    return delegate.deterministic();
  }

  @Override
  public boolean servesPayloadAlone() {
    return delegate.servesPayloadAlone();
  }

  @Override
  public ServeLimits limits() {
    return delegate.limits();
  }

  @Override
  public OptionalLong contextTokens() {
    return delegate.contextTokens();
  }

  @Override
  public Optional<WeightsBinding> weights() {
    return delegate.weights();
  }

  @Override
  public Set<EnergyDomain> domains() {
    return delegate.domains();
  }

  @Override
  public Tokenizer tokenizer() {
    return delegate.tokenizer();
  }

  @Override
  public TokenAccounting tokenAccounting() {
    return delegate.tokenAccounting();
  }

  @Override
  public EngineResult serve(ServeRequest request, TokenSequence prompt) throws EngineException {
    return delegate.serve(request, prompt);
  }

  @Override
  public EngineResult serve(ServeRequest request, TokenSequence prompt, TokenSink sink)
      throws EngineException {
    return delegate.serve(request, prompt, sink);
  }

  @Override
  public int maxWaitingServes() {
    return delegate.maxWaitingServes();
  }

  @Override
  public int maxConcurrentServes() {
    return delegate.maxConcurrentServes();
  }

  @Override
  public boolean streams() {
    return delegate.streams();
  }

  @Override
  public String toString() {
    return getClass().getSimpleName() + "[" + delegate + "]";
  }
}
