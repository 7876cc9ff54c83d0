package org.meshjava.core;

import java.util.Objects;
import java.util.OptionalLong;

/**
 * An energy figure in integer microjoules with its provenance (§3.3). The coupling between
 * provenance and measurement is enforced here, so an {@code Energy} that exists is one a receipt
 * may carry:
 *
 * <ul>
 *   <li>{@link Provenance#HwShunt} requires {@code measuredUj};
 *   <li>{@link Provenance#Estimator} forbids it;
 *   <li>{@link Provenance#ModelBased} allows either.
 * </ul>
 *
 * <p>Immutable.
 *
 * @param measuredUj the hardware reading, if any
 * @param estimatedUj the estimate, always present
 * @param provenance where the figure came from
 */
public record Energy(OptionalLong measuredUj, long estimatedUj, Provenance provenance) {

  /** Enforces non-negative figures and the §3.3 coupling. */
  public Energy {
    Objects.requireNonNull(measuredUj, "measuredUj");
    Objects.requireNonNull(provenance, "provenance");
    Unsigned.u64("estimated_uj", estimatedUj);
    // Not Unsigned.u64: this message has always shown the OptionalLong, and messages stay as they
    // are.
    if (measuredUj.isPresent() && measuredUj.getAsLong() < 0) {
      throw new IllegalArgumentException("measured_uj must be non-negative: " + measuredUj);
    }
    if (provenance == Provenance.HwShunt && measuredUj.isEmpty()) {
      throw new IllegalArgumentException("HwShunt energy must carry measured_uj (§3.3)");
    }
    if (provenance == Provenance.Estimator && measuredUj.isPresent()) {
      throw new IllegalArgumentException("Estimator energy must not carry measured_uj (§3.3)");
    }
  }

  /** An {@code Estimator} figure. */
  public static Energy estimated(long estimatedUj) {
    return new Energy(OptionalLong.empty(), estimatedUj, Provenance.Estimator);
  }

  /** A {@code HwShunt} figure. */
  public static Energy measured(long measuredUj, long estimatedUj) {
    return new Energy(OptionalLong.of(measuredUj), estimatedUj, Provenance.HwShunt);
  }

  /** The figure that counts (§6.2): the measurement when there is one, else the estimate. */
  public long uj() {
    return measuredUj.orElse(estimatedUj);
  }
}
