package org.meshjava.energy;

import java.util.Set;
import org.meshjava.core.Energy;
import org.meshjava.core.EnergyDomain;

/**
 * The meter of a host without live hardware counters: it reports the cost-profile estimate of what
 * was served, graded {@code Estimator}, with no measurement (§3.3, §8). Stateless and thread-safe.
 */
public final class EstimatorMeter implements EnergyMeter {
  private static final MeterWindow WINDOW =
      new MeterWindow() {
        @Override
        public Energy close(long estimatedUj) {
          return Energy.estimated(estimatedUj);
        }

        @Override
        public void abandon() {}
      };

  /** Creates the meter. */
  public EstimatorMeter() {}

  @Override
  public String name() {
    return "estimator";
  }

  @Override
  public MeterWindow open(Set<EnergyDomain> domains) {
    return WINDOW;
  }
}
