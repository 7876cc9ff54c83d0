package org.meshjava.energy;

import java.util.Set;
import org.meshjava.core.EnergyDomain;

/**
 * Measures the energy of one serve by opening a window before the engine runs and closing it after
 * (§2, phase 3). Energy is metered around the engine; engines never report it.
 *
 * <p>Implementations must be thread-safe: a steward opens windows from many threads at once.
 */
public interface EnergyMeter {

  /** A short name for logs and diagnostics. */
  String name();

  /**
   * Opens a window around a serve whose work draws on {@code domains}.
   *
   * @param domains the serving backend's declared domains (§3.3)
   */
  MeterWindow open(Set<EnergyDomain> domains);
}
