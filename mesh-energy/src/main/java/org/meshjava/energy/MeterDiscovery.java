package org.meshjava.energy;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The steward's default meter: finds the energy counters this machine has, proves which are
 * live (§3.3), and returns a {@link CounterMeter} over them, or the {@link EstimatorMeter} when
 * none is live, so a receipt never claims more than the machine can show. Every counter found
 * or refused is in {@link #counters()} with its reason, and logged.
 *
 * <p>On a machine without counters (no powercap tree or root-only {@code energy_uj}, no NVML,
 * not macOS) discovery touches a few paths and returns at once. With readable counters it
 * burns one core for one probe (400 ms by default).
 *
 * @param meter the meter to give the steward
 * @param counters every counter considered, with its state and any reason it is not live
 */
public record MeterDiscovery(EnergyMeter meter, List<CounterStatus> counters) {
  private static final Logger LOG = LoggerFactory.getLogger(MeterDiscovery.class);

  /** Validates and copies. */
  public MeterDiscovery {
    Objects.requireNonNull(meter, "meter");
    counters = List.copyOf(counters);
  }

  /**
   * Discovers counters as {@code options} say.
   *
   * @return the meter and what was found; never throws for a missing or failing counter
   */
  public static MeterDiscovery discover(DiscoveryOptions options) {
    return discover(
        options, ProbeClock.SYSTEM, null, SysfsReader.FILES, System.getProperty("os.name", ""));
  }

  /** Whether the meter grades anything from hardware. */
  public boolean hardwareGraded() {
    return meter instanceof CounterMeter;
  }

  static MeterDiscovery discover(
      DiscoveryOptions options,
      ProbeClock clock,
      Executor reprobeExecutor,
      SysfsReader sysfs,
      String osName) {
    Objects.requireNonNull(options, "options");
    List<EnergyChannel> channels = new ArrayList<>();
    List<CounterStatus> refused = new ArrayList<>();
    options.raplRoot().ifPresent(root -> RaplDiscovery.discover(root, sysfs, channels, refused));
    options.nvmlLibrary().ifPresent(lib -> NvmlDiscovery.discover(lib, channels, refused));
    if (options.ioReport()) {
      IoReportDiscovery.discover(osName, channels, refused);
    }
    for (CounterStatus s : refused) {
      LOG.info("energy counter {} unavailable ({}): {}", s.counter(), s.issue().orElseThrow(),
          s.detail());
    }
    if (channels.isEmpty()) {
      LOG.info("no readable energy counters; figures are graded Estimator");
      return new MeterDiscovery(new EstimatorMeter(), refused);
    }
    CounterMeter meter =
        new CounterMeter(
            channels,
            refused,
            options.liveness(),
            options.reprobeEvery(),
            options.stallAfter(),
            options.gpuWork(),
            clock,
            reprobeExecutor);
    List<CounterStatus> statuses = meter.probeNow();
    if (meter.liveDomains().isEmpty()) {
      meter.close();
      LOG.info("no energy counter proved live; figures are graded Estimator");
      return new MeterDiscovery(new EstimatorMeter(), statuses);
    }
    LOG.info("energy meter {} live on {}", meter.name(), meter.liveDomains());
    return new MeterDiscovery(meter, statuses);
  }
}
