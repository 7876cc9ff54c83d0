package org.meshjava.energy;

import java.util.Set;
import org.meshjava.core.EnergyDomain;
import org.meshjava.core.HostPackages;

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
   * <p>A meter other than the {@link CounterMeter} grades a reading of {@code domains} alone: it
   * cannot know what else the serve drew on, so a caller that names a GPU alone has the GPU's
   * counter graded the whole serve's reading (§3.3). Open a window for a serve of this process with
   * {@link #openServe} instead, which adds the host's CPU packages. A {@link CounterMeter} adds
   * them itself, here too.
   *
   * @param domains every domain the serve draws on (§3.3)
   */
  MeterWindow open(Set<EnergyDomain> domains);

  /**
   * Opens a window around a serve of this process whose backend declared {@code declared}: on those
   * domains and, where they name any, every CPU package this process may run on ({@link
   * HostPackages#cover}), since the serve's own thread runs there whatever it drives. This default
   * covers {@link HostPackages#ofThisProcess()}; a meter that knows its host's packages otherwise
   * (the {@link CounterMeter}, from its discovery's options) covers those.
   *
   * @param declared the domains the backend declared
   */
  default MeterWindow openServe(Set<EnergyDomain> declared) {
    return open(HostPackages.ofThisProcess().cover(declared));
  }
}
