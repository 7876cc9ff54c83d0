package org.meshjava.steward;

import java.util.Set;
import org.meshjava.core.Energy;
import org.meshjava.core.EnergyDomain;
import org.meshjava.energy.EnergyMeter;
import org.meshjava.energy.MeterWindow;

/**
 * A meter whose windows open but never close: a counter lost mid-serve, so no figure can be given.
 * Test support only.
 */
final class BrokenMeter implements EnergyMeter {
  private final String why;

  /** Fails each close with an {@link IllegalStateException} saying {@code why}. */
  BrokenMeter(String why) {
    this.why = why;
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
        throw new IllegalStateException(why);
      }

      @Override
      public void abandon() {}
    };
  }
}
