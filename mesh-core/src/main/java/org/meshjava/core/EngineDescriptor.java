package org.meshjava.core;

import java.util.Objects;

/**
 * What names a backend and what the router weighs it by: its name (the receipt's {@code backend}),
 * the recipe it serves, its advertised fidelity (§3.2.1) and its modelled cost (§4). Every engine
 * has one; {@link DescribedEngine} holds it for an engine and {@link EngineBuilder} collects it.
 *
 * @param name the backend's name, unique within a steward; not blank
 * @param recipe the composed model it serves
 * @param fidelity the advertised fidelity
 * @param costProfile the modelled cost
 */
public record EngineDescriptor(
    String name, Recipe recipe, Fidelity fidelity, CostProfile costProfile) {

  /** Validates the descriptor. */
  public EngineDescriptor {
    Objects.requireNonNull(name, "name");
    if (name.isBlank()) {
      throw new IllegalArgumentException("name must not be blank");
    }
    Objects.requireNonNull(recipe, "recipe");
    Objects.requireNonNull(fidelity, "fidelity");
    Objects.requireNonNull(costProfile, "costProfile");
  }

  /** The descriptor of any engine, read through its accessors. */
  public static EngineDescriptor of(ServingEngine engine) {
    return engine instanceof DescribedEngine d
        ? d.descriptor()
        : new EngineDescriptor(
            engine.name(), engine.recipe(), engine.fidelity(), engine.costProfile());
  }
}
