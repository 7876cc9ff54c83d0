package org.meshjava.energy;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.meshjava.core.Energy;
import org.meshjava.core.EnergyDomain;
import org.meshjava.core.HostPackages;
import org.meshjava.core.Provenance;

/**
 * {@link EnergyMeter#openServe}'s default, for a meter of a user's own that implements only {@link
 * EnergyMeter#open}: such a meter is never told whether the host's list of CPU packages it is
 * opened on is whole, so where it is not (§3.3, {@link HostPackages#complete()}) its reading is
 * graded the estimate.
 */
class OpenServeDefaultTest {
  private static final EnergyDomain GPU0 = EnergyDomain.gpu(0);
  private static final EnergyDomain PACKAGE0 = EnergyDomain.cpuPackage(0);

  /** A user's meter written against the old SPI: a reading of whatever it is opened on. */
  private static final class ReadsEverything implements EnergyMeter {
    final List<Set<EnergyDomain>> opened = new ArrayList<>();
    int abandoned;

    @Override
    public String name() {
      return "user's own";
    }

    @Override
    public MeterWindow open(Set<EnergyDomain> domains) {
      opened.add(Set.copyOf(domains));
      return new MeterWindow() {
        @Override
        public Energy close(long estimatedUj) {
          return Energy.measured(7_000, estimatedUj);
        }

        @Override
        public void abandon() {
          abandoned++;
        }
      };
    }
  }

  /**
   * Regression: the default covered the host's packages and handed the meter's figure on as it was,
   * so a user's meter on a host that hid part of its CPU topology sealed a {@code HwShunt} figure
   * that may leave out a package the serve ran on; the counter meter grades that the estimate. The
   * meter is still opened on the declared domains and the packages read.
   */
  @Test
  void aUsersOwnMeter_whereTheHostsPackagesAreIncomplete_isGradedTheEstimate() {
    ReadsEverything meter = new ReadsEverything();

    MeterWindow w =
        HostCoverage.openServe(meter, Set.of(GPU0), new HostPackages(Set.of(PACKAGE0), false));

    assertThat(w.close(40)).isEqualTo(Energy.estimated(40));
    assertThat(meter.opened).containsExactly(Set.of(GPU0, PACKAGE0));
    w.abandon();
    assertThat(meter.abandoned).as("abandon reaches the meter's window").isEqualTo(1);
  }

  /**
   * Regression: the line saying figures are graded the estimate was logged as the first window
   * opened, whatever its meter read, so the estimator meter (which discovery picks on just such a
   * host) warned at its first serve that its figures, the estimate as always, were graded so, and
   * that a meter should override {@code openServe}. It is said once, where a reading is set aside.
   */
  @Test
  void theEstimatorMeter_whereTheHostsPackagesAreIncomplete_logsNothing() {
    HostPackages incomplete = new HostPackages(Set.of(PACKAGE0), false);
    HostCoverage.SAID.set(false);

    String estimator =
        CounterLogLevelsTest.logOf(
            () ->
                assertThat(
                        HostCoverage.openServe(new EstimatorMeter(), Set.of(GPU0), incomplete)
                            .close(40))
                    .isEqualTo(Energy.estimated(40)));
    String reading =
        CounterLogLevelsTest.logOf(
            () -> {
              for (int i = 0; i < 2; i++) {
                HostCoverage.openServe(new ReadsEverything(), Set.of(GPU0), incomplete).close(40);
              }
            });

    assertThat(estimator).isEmpty();
    assertThat(reading.lines())
        .singleElement()
        .asString()
        .contains("WARN", "energy meter user's own", "graded Estimator");
  }

  /** A complete list, or a declaration of no domain, leaves the meter's own grading as it is. */
  @Test
  void aUsersOwnMeter_whereTheListIsComplete_orNothingIsDeclared_gradesAsItReads() {
    ReadsEverything meter = new ReadsEverything();

    assertThat(
            HostCoverage.openServe(meter, Set.of(GPU0), new HostPackages(Set.of(PACKAGE0), true))
                .close(40))
        .isEqualTo(Energy.measured(7_000, 40));
    assertThat(
            HostCoverage.openServe(meter, Set.of(), new HostPackages(Set.of(PACKAGE0), false))
                .close(40))
        .isEqualTo(Energy.measured(7_000, 40));
    assertThat(meter.opened).containsExactly(Set.of(GPU0, PACKAGE0), Set.of());
  }

  /** The default itself covers this process's packages and grades by whether they are whole. */
  @Test
  void theDefault_gradesByThisProcesssPackages() {
    ReadsEverything meter = new ReadsEverything();
    HostPackages host = HostPackages.ofThisProcess();

    Energy e = meter.openServe(Set.of(GPU0)).close(40);

    assertThat(e.provenance())
        .isEqualTo(host.complete() ? Provenance.HwShunt : Provenance.Estimator);
    assertThat(meter.opened).containsExactly(host.cover(Set.of(GPU0)));
  }
}
