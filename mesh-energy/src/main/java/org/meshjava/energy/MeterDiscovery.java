package org.meshjava.energy;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Executor;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The steward's default meter: finds the energy counters this machine has, proves which are live
 * (§3.3), and returns a {@link CounterMeter} over them, or the {@link EstimatorMeter} when none is
 * live, so a receipt never claims more than the machine can show. Every counter found or refused is
 * in {@link #counters()} with its reason, and logged.
 *
 * <p>On a machine without counters (no powercap tree or root-only {@code energy_uj}, no NVML, not
 * macOS) discovery touches a few paths and returns at once. With readable counters it burns one
 * core for one probe (400 ms by default, 1.5 s when a GPU counter is probed).
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
   * @return the meter and what was found; never throws for a missing, failing or forbidden counter
   *     (native access denied to this module included)
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
      @Nullable Executor reprobeExecutor,
      SysfsReader sysfs,
      String osName) {
    Objects.requireNonNull(options, "options");
    List<EnergyChannel> channels = new ArrayList<>();
    List<CounterStatus> refused = new ArrayList<>();
    options
        .raplRoot()
        .ifPresent(
            root ->
                guarded(
                    "rapl", refused, () -> RaplDiscovery.discover(root, sysfs, channels, refused)));
    options
        .nvmlLibrary()
        .ifPresent(
            lib ->
                guarded(
                    "nvml",
                    refused,
                    () -> NvmlDiscovery.discover(lib, options.gpuVisibility(), channels, refused)));
    if (options.ioReport()) {
      guarded("ioreport", refused, () -> IoReportDiscovery.discover(osName, channels, refused));
    }
    for (CounterStatus s : refused) {
      LOG.info(
          "energy counter {} unavailable ({}): {}",
          s.counter(),
          s.issue().orElseThrow(),
          s.detail());
    }
    unreadableAdvice(refused).ifPresent(LOG::warn);
    if (channels.isEmpty()) {
      LOG.info("no readable energy counters; figures are graded Estimator");
      return new MeterDiscovery(new EstimatorMeter(), refused);
    }
    CounterMeter meter =
        new CounterMeter(
            channels,
            refused,
            options.liveness(),
            options.nvmlLiveness(),
            options.reprobeEvery(),
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

  /**
   * Runs one source's discovery so that nothing it throws escapes: a restricted FFM call made
   * without native access throws {@link IllegalCallerException}, and an unforeseen fault in one
   * source must not cost the others.
   */
  private static void guarded(String source, List<CounterStatus> refused, Runnable discovery) {
    try {
      discovery.run();
    } catch (IllegalCallerException e) {
      refused.add(
          CounterStatus.unavailable(
              source, Optional.empty(), CounterIssue.NATIVE_ACCESS_DENIED, nativeAccessDenied(e)));
    } catch (RuntimeException e) {
      refused.add(
          CounterStatus.unavailable(
              source, Optional.empty(), CounterIssue.NATIVE_ERROR, "discovery failed: " + e));
    }
  }

  /** The detail of a counter refused because this module may not call native code. */
  static String nativeAccessDenied(IllegalCallerException e) {
    return "native access is denied to this module ("
        + e.getMessage()
        + "); run with"
        + " --enable-native-access=org.meshjava.energy (module path) or ALL-UNNAMED (class path)";
  }

  /**
   * One line that says why counters that exist could not be read, and how an operator grants
   * access; empty when no RAPL counter was refused as unreadable. Logged at WARN once per
   * discovery, because without it the meter is silently an estimator on most Linux hosts.
   */
  static Optional<String> unreadableAdvice(List<CounterStatus> refused) {
    List<String> zones = new ArrayList<>();
    for (CounterStatus s : refused) {
      if (s.counter().startsWith("rapl")
          && s.issue().equals(Optional.of(CounterIssue.UNREADABLE))) {
        zones.add(s.counter());
      }
    }
    if (zones.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(
        "RAPL energy counters "
            + zones
            + " exist but this process may not read energy_uj (root"
            + " only since the CVE-2020-8694 fix), so CPU figures are graded Estimator. To meter"
            + " them, grant read access: a udev rule or tmpfiles entry giving a group read on"
            + " /sys/class/powercap/intel-rapl:*/energy_uj, then run in that group (see"
            + " mesh-energy's README, 'Non-root hosts').");
  }
}
