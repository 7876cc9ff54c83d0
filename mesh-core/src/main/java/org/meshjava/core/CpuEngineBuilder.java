package org.meshjava.core;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The builder of a {@link CpuEngine}: {@link EngineBuilder}'s four descriptor setters and the
 * engine's {@link ServeConcurrency}. Not thread-safe.
 *
 * @param <B> the engine's builder, returned by each setter
 */
public abstract class CpuEngineBuilder<B extends CpuEngineBuilder<B>> extends EngineBuilder<B> {
  private ServeConcurrency concurrency = ServeConcurrency.cpuDefault();

  /**
   * A builder with the engine's defaults and {@link ServeConcurrency#cpuDefault()}.
   *
   * @param name the default backend name, or null if it must be set
   * @param recipe the default recipe, or null if the engine derives it
   * @param fidelity the default advertised fidelity
   * @param costProfile the default cost profile
   */
  protected CpuEngineBuilder(
      @Nullable String name, @Nullable Recipe recipe, Fidelity fidelity, CostProfile costProfile) {
    super(name, recipe, fidelity, costProfile);
  }

  /**
   * How many serves the engine runs at once and how many may wait; the default is {@link
   * ServeConcurrency#cpuDefault()}: one per core, any number waiting.
   */
  public B concurrency(ServeConcurrency v) {
    concurrency = Objects.requireNonNull(v, "concurrency");
    return self();
  }

  /** The bound collected. */
  public final ServeConcurrency concurrency() {
    return concurrency;
  }
}
