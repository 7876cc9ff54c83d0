package org.meshjava.energy;

import java.util.Objects;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import org.meshjava.core.Energy;
import org.meshjava.core.EnergyDomain;
import org.meshjava.core.HostPackages;
import org.meshjava.core.Provenance;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What {@link EnergyMeter#openServe}'s default does for a meter that does not know the host's CPU
 * packages itself: it opens the meter on the declared domains and the host's packages, and where
 * that list of packages is not {@link HostPackages#complete()} it grades the window's figure the
 * estimate, whatever the meter read (§3.3): the meter was never told that a package the serve may
 * have run on is missing from the domains it was opened on, so its reading may leave it out.
 * Thread-safe; its one state is whether it has said so in the log.
 */
final class HostCoverage {
  private static final Logger LOG = LoggerFactory.getLogger(HostCoverage.class);

  /**
   * Whether a figure graded so was logged: once a process, as the host's list is read once.
   * Package-private for the test that reads the line.
   */
  static final AtomicBoolean SAID = new AtomicBoolean();

  private HostCoverage() {}

  /**
   * Opens {@code meter} on {@code declared} covered by {@code host} ({@link HostPackages#cover}),
   * its figure graded the estimate where {@code host} is not complete.
   */
  static MeterWindow openServe(EnergyMeter meter, Set<EnergyDomain> declared, HostPackages host) {
    Objects.requireNonNull(host, "host");
    MeterWindow window = meter.open(host.cover(declared));
    // An empty declaration (work done elsewhere) is covered by no package, complete or not.
    if (host.complete() || declared.isEmpty()) {
      return window;
    }
    return new EstimateOnly(window, meter.name());
  }

  /**
   * A window whose figure is its meter's estimate, never a reading. Said in the log where a reading
   * is set aside, not where the meter read none: the estimator meter, which discovery picks on just
   * such a host, warned that its figures were graded the estimate they always are, naming a remedy
   * for a meter the user never wrote.
   */
  private record EstimateOnly(MeterWindow window, String meterName) implements MeterWindow {
    @Override
    public Energy close(long estimatedUj) {
      Energy read = window.close(estimatedUj);
      if (read.provenance() == Provenance.Estimator) {
        return read;
      }
      if (SAID.compareAndSet(false, true)) {
        LOG.warn(
            "energy meter {}: this host's list of CPU packages is incomplete (its CPU topology is"
                + " partly hidden), so the figures of its serves are graded Estimator (§3.3); a"
                + " meter that covers the host's packages itself overrides EnergyMeter.openServe",
            meterName);
      }
      return Energy.estimated(read.estimatedUj());
    }

    @Override
    public void abandon() {
      window.abandon();
    }
  }
}
