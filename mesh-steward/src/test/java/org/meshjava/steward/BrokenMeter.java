package org.meshjava.steward;

import java.util.Set;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.meshjava.core.Energy;
import org.meshjava.core.EnergyDomain;
import org.meshjava.energy.EnergyMeter;
import org.meshjava.energy.MeterWindow;

/**
 * A meter whose windows open but never close: a counter lost mid-serve, so no figure can be given.
 * Test support only.
 */
final class BrokenMeter implements EnergyMeter {
  private final Supplier<? extends RuntimeException> runtime;
  private final @Nullable Supplier<? extends Error> error;

  /** Fails each close with an {@link IllegalStateException} saying {@code why}. */
  BrokenMeter(String why) {
    this.runtime = () -> new IllegalStateException(why);
    this.error = null;
  }

  /** Fails each close with the {@link Error} {@code error} makes (a bug in the meter). */
  static BrokenMeter throwingError(Supplier<? extends Error> error) {
    return new BrokenMeter(error);
  }

  private BrokenMeter(Supplier<? extends Error> error) {
    this.runtime = IllegalStateException::new;
    this.error = error;
  }

  @Override
  public String name() {
    return "broken";
  }

  @Override
  public MeterWindow open(Set<EnergyDomain> domains) {
    return new MeterWindow() {
      @Override
      public Energy close(long estimatedUj) {
        if (error != null) {
          throw error.get();
        }
        throw runtime.get();
      }

      @Override
      public void abandon() {}
    };
  }
}
