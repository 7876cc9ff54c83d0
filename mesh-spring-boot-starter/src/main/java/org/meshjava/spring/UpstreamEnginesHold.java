package org.meshjava.spring;

import java.util.ArrayList;
import java.util.List;
import org.meshjava.core.internal.FirstFailureWins;
import org.meshjava.openai.UpstreamEngine;

/**
 * The upstream engines the starter builds from {@code mesh.backends}, closed only after the steward
 * that routes to them: the steward never closes the engines it is given ({@code
 * Steward.Builder#backend}), and each holds its idle connections to its upstream. A bean of its own
 * because the steward's bean is the {@code Steward} itself, which cannot carry them; Spring
 * destroys the steward, which depends on it, first, and destroys it too when the context fails to
 * start. Engines declared as beans are not here: Spring closes those itself. Thread-safe.
 */
final class UpstreamEnginesHold implements AutoCloseable {
  private final List<UpstreamEngine> engines = new ArrayList<>();

  /** Holds {@code engine} until {@link #close()}. */
  synchronized void hold(UpstreamEngine engine) {
    engines.add(engine);
  }

  /**
   * Closes every engine held, each whatever closing the one before threw, and throws the first
   * failure with the others suppressed on it; idempotent.
   */
  @Override
  public synchronized void close() {
    Throwable failed = null;
    for (UpstreamEngine e : engines) {
      try {
        e.close();
      } catch (RuntimeException | Error x) {
        failed = FirstFailureWins.keep(failed, x);
      }
    }
    engines.clear();
    if (failed instanceof RuntimeException r) {
      throw r;
    }
    if (failed instanceof Error r) {
      throw r;
    }
  }
}
