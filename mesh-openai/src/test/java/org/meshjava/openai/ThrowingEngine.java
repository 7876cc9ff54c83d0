package org.meshjava.openai;

import java.util.Objects;
import org.meshjava.core.CostProfile;
import org.meshjava.core.EngineException;
import org.meshjava.core.EngineResult;
import org.meshjava.core.Fidelity;
import org.meshjava.core.Recipe;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.ServingEngine;
import org.meshjava.core.TokenSequence;

/** A backend that is always the cheapest (F4 at 1 µJ a token) and throws on every serve. */
final class ThrowingEngine implements ServingEngine {
  private final String name;
  private final Throwable thrown;

  private ThrowingEngine(String name, Throwable thrown) {
    this.name = name;
    this.thrown = thrown;
  }

  private ThrowingEngine(Throwable thrown) {
    this("thrower", thrown);
  }

  /** Named {@code name}, throws {@code failure} (an engine's exception too) from every serve. */
  static ServingEngine named(String name, Exception failure) {
    return new ThrowingEngine(
        Objects.requireNonNull(name, "name"), Objects.requireNonNull(failure, "failure"));
  }

  /** Throws {@code error} from every serve. */
  static ServingEngine of(Error error) {
    return new ThrowingEngine(Objects.requireNonNull(error, "error"));
  }

  /** Throws {@code failure} from every serve. */
  static ServingEngine of(RuntimeException failure) {
    return new ThrowingEngine(Objects.requireNonNull(failure, "failure"));
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public Recipe recipe() {
    return Recipe.of("thrower");
  }

  @Override
  public Fidelity fidelity() {
    return Fidelity.F4;
  }

  @Override
  public CostProfile costProfile() {
    return CostProfile.perToken(1);
  }

  @Override
  public EngineResult serve(ServeRequest request, TokenSequence prompt) throws EngineException {
    if (thrown instanceof Error e) {
      throw e;
    }
    if (thrown instanceof EngineException e) {
      throw e;
    }
    throw (RuntimeException) thrown;
  }
}
