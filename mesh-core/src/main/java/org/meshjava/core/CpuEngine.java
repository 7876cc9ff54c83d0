package org.meshjava.core;

import java.util.Objects;

/**
 * A {@link DescribedEngine} that computes on this host's CPUs, bounded by a {@link
 * ServeConcurrency}: it answers {@link #maxConcurrentServes()} and {@link #maxWaitingServes()} from
 * that one value, which its builder collects ({@link CpuEngineBuilder#concurrency}). Subclasses
 * keep {@link ServingEngine}'s thread-safety contract; the bound itself is immutable.
 */
public abstract class CpuEngine extends DescribedEngine {
  private final ServeConcurrency concurrency;

  /**
   * An engine described by {@code descriptor}, running and queueing as {@code concurrency} says.
   */
  protected CpuEngine(EngineDescriptor descriptor, ServeConcurrency concurrency) {
    super(descriptor);
    this.concurrency = Objects.requireNonNull(concurrency, "concurrency");
  }

  /** The configured running bound; {@link ServeConcurrency#cpuDefault()} unless set. */
  @Override
  public final int maxConcurrentServes() {
    return concurrency.maxConcurrentServes();
  }

  /** The configured waiting bound; unbounded unless set. */
  @Override
  public final int maxWaitingServes() {
    return concurrency.maxWaitingServes();
  }
}
