package org.meshjava.core;

import java.util.Objects;

/**
 * An engine that answers {@link #name}, {@link #recipe}, {@link #fidelity} and {@link #costProfile}
 * from one {@link EngineDescriptor} fixed at construction, so that each engine states only what it
 * does, not the same four fields again. Subclasses keep {@link ServingEngine}'s thread-safety
 * contract; the descriptor itself is immutable.
 */
public abstract class DescribedEngine implements ServingEngine {
  private final EngineDescriptor descriptor;

  /** An engine described by {@code descriptor}. */
  protected DescribedEngine(EngineDescriptor descriptor) {
    this.descriptor = Objects.requireNonNull(descriptor, "descriptor");
  }

  /** The engine's name, recipe, fidelity and cost profile. */
  public final EngineDescriptor descriptor() {
    return descriptor;
  }

  @Override
  public final String name() {
    return descriptor.name();
  }

  @Override
  public final Recipe recipe() {
    return descriptor.recipe();
  }

  @Override
  public final Fidelity fidelity() {
    return descriptor.fidelity();
  }

  @Override
  public final CostProfile costProfile() {
    return descriptor.costProfile();
  }
}
