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
   * <p>A meter grades a reading of {@code domains} alone: it cannot know what else the serve drew
   * on. The steward passes the backend's declared domains with every CPU package this process may
   * run on added where some are missing ({@link EnergyDomain#cpuPackagesOfThisProcess()}), since
   * the serve's own thread runs there whatever it drives; a caller opening windows itself passes
   * the same, or a GPU's counter alone is graded the whole serve's reading (§3.3).
   *
   * @param domains every domain the serve draws on (§3.3): the backend's declared domains, with
   *     this process's CPU packages where the serve runs on this host
   */
  MeterWindow open(Set<EnergyDomain> domains);
}
