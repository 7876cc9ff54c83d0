package org.meshjava.core;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The part of an engine's builder that collects its {@link EngineDescriptor}: the same four setters
 * for every engine. An engine's builder extends it and states its defaults; a name or recipe left
 * without one must be set, or be derived by the engine when it is built (a model directory's name,
 * an upstream's model). Not thread-safe.
 *
 * @param <B> the engine's builder, returned by each setter
 */
public abstract class EngineBuilder<B extends EngineBuilder<B>> {
  private @Nullable String name;
  private @Nullable Recipe recipe;
  private Fidelity fidelity;
  private CostProfile costProfile;

  /**
   * A builder with the engine's defaults; a null name or recipe has none.
   *
   * @param name the default backend name, or null if it must be set
   * @param recipe the default recipe, or null if the engine derives it
   * @param fidelity the default advertised fidelity
   * @param costProfile the default cost profile
   */
  protected EngineBuilder(
      @Nullable String name, @Nullable Recipe recipe, Fidelity fidelity, CostProfile costProfile) {
    this.name = name;
    this.recipe = recipe;
    this.fidelity = Objects.requireNonNull(fidelity, "fidelity");
    this.costProfile = Objects.requireNonNull(costProfile, "costProfile");
  }

  /** This builder, as its own type. */
  protected abstract B self();

  /** Sets the backend name, unique within a steward; not blank. */
  public B name(String v) {
    name = Setting.notBlank("name", v);
    return self();
  }

  /** Sets the recipe named on receipts. */
  public B recipe(Recipe v) {
    recipe = Objects.requireNonNull(v, "recipe");
    return self();
  }

  /** Sets the advertised fidelity. */
  public B fidelity(Fidelity v) {
    fidelity = Objects.requireNonNull(v, "fidelity");
    return self();
  }

  /** Sets the modelled cost the router and the estimator use. */
  public B costProfile(CostProfile v) {
    costProfile = Objects.requireNonNull(v, "costProfile");
    return self();
  }

  /** Whether a name was set or defaulted. */
  protected final boolean named() {
    return name != null;
  }

  /**
   * The descriptor collected, with {@code derivedRecipe} as the recipe when none was set.
   *
   * @throws IllegalStateException if no name was set and there is no default
   */
  public final EngineDescriptor descriptor(Recipe derivedRecipe) {
    if (name == null) {
      throw new IllegalStateException("an engine needs a name");
    }
    return new EngineDescriptor(
        name, recipe != null ? recipe : derivedRecipe, fidelity, costProfile);
  }

  /**
   * The descriptor collected.
   *
   * @throws IllegalStateException if no name or recipe was set and there is no default
   */
  public final EngineDescriptor descriptor() {
    if (recipe == null) {
      throw new IllegalStateException("an engine needs a recipe");
    }
    return descriptor(recipe);
  }
}
