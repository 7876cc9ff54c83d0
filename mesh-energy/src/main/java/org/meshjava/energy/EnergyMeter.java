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
   * HostPackages#cover}), since the serve's own thread runs there whatever it drives.
   *
   * <p>This default opens {@link #open} on the declared domains and the packages of {@link
   * HostPackages#ofThisProcess()}. Where that list is not {@link HostPackages#complete()} (a
   * container that hides part of the CPU topology), {@link #open} cannot be told that a package the
   * serve may have run on is missing from the domains it is given, so the default grades the
   * window's figure {@code Estimator} whatever the meter read, keeping the estimate it carries
   * (§3.3). A meter that knows its host's packages otherwise overrides this and grades by what it
   * knows: the {@link CounterMeter} covers those its discovery's options give, and declines to read
   * where they are incomplete; a meter of your own that overrides it undertakes the same.
   *
   * @param declared the domains the backend declared
   */
  default MeterWindow openServe(Set<EnergyDomain> declared) {
    return HostCoverage.openServe(this, declared, HostPackages.ofThisProcess());
  }
}
