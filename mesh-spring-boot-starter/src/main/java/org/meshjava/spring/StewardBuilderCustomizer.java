package org.meshjava.spring;

import org.meshjava.steward.Steward;

/**
 * Adjusts the steward's builder after {@code mesh.*} has been applied and before the steward is
 * built: declare one as a bean to add what properties cannot say (a listener, a clock, a witness
 * key, a journal of your own). Customizers run in {@code @Order}, and each hears {@link #built}
 * once the steward exists (the Micrometer binding registers its listener here and starts its gauges
 * there).
 */
@FunctionalInterface
public interface StewardBuilderCustomizer {

  /** Adjusts {@code builder}. */
  void customize(Steward.Builder builder);

  /** Called with the steward the customized builder built; by default does nothing. */
  default void built(Steward steward) {}
}
