package org.meshjava.energy;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executor;
import org.jspecify.annotations.Nullable;
import org.meshjava.core.HostPackages;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The steward's default meter: finds the energy counters this machine has, proves which are live
 * (§3.3), and returns a {@link CounterMeter} over them, or the {@link EstimatorMeter} when none is
 * live and none failed only to be read (such a counter may answer at a later re-probe, so the
 * counter meter is kept for it, grading {@code Estimator} meanwhile), so a receipt never claims
 * more than the machine can show. Every counter found or refused is in {@link #counters()} with its
 * reason. It logs one line at INFO saying what it found and how figures are graded; each refused
 * counter's reason at DEBUG; and at WARN, advice when RAPL counters exist but may not be read, and
 * each counter that fails its liveness probe.
 *
 * <p>On a machine without counters (no powercap tree or root-only {@code energy_uj}, no NVML, not
 * macOS) discovery touches a few paths and returns at once. With readable counters it burns one
 * core for one probe (400 ms by default, 1.5 s when a GPU counter is probed).
 *
 * <p>Immutable; the meter it found is thread-safe, as every meter is.
 *
 * @param meter the meter to give the steward
 * @param counters every counter considered, with its state and any reason it is not live
 * @param unreadableAdvice the line discovery logged at WARN on RAPL counters that exist but could
 *     not be opened, saying what an operator can do about each; empty when none was
 */
public record MeterDiscovery(
    EnergyMeter meter, List<CounterStatus> counters, Optional<String> unreadableAdvice) {
  private static final Logger LOG = LoggerFactory.getLogger(MeterDiscovery.class);

  /** Validates and copies. */
  public MeterDiscovery {
    Objects.requireNonNull(meter, "meter");
    counters = List.copyOf(counters);
    Objects.requireNonNull(unreadableAdvice, "unreadableAdvice");
  }

  /** A discovery that gave no advice on unreadable counters. */
  public MeterDiscovery(EnergyMeter meter, List<CounterStatus> counters) {
    this(meter, counters, Optional.empty());
  }

  /**
   * Discovers counters as {@code options} say, into a meter of the caller's own, which the caller
   * closes. Two such meters over one machine keep separate books, so overlapping serves metered by
   * both may each be graded {@code HwShunt} for the same energy: a process that meters with more
   * than one holder takes {@link #lease} instead, or gives each holder this one meter.
   *
   * @return the meter and what was found; never throws for a missing, failing or forbidden counter
   *     (native access denied to this module included)
   */
  public static MeterDiscovery discover(DiscoveryOptions options) {
    Objects.requireNonNull(options, "options");
    return discover(
        hostSaid(options),
        ProbeClock.SYSTEM,
        null,
        ErrnoSysfsReader.orFiles(),
        System.getProperty("os.name", ""));
  }

  /**
   * {@code options} as discovery reads them: naming this process's CPU packages where they name no
   * host packages. A lease is keyed on these, so options that leave the packages unsaid and the
   * same options naming this process's packages share one meter, as they discover the same one.
   */
  static DiscoveryOptions hostSaid(DiscoveryOptions options) {
    return options.hostPackages().isPresent()
        ? options
        : options.withHostPackages(HostPackages.ofThisProcess());
  }

  /**
   * A lease on the hardware meter this process shares under {@code options}: the meter an earlier
   * lease on equal options discovered, while any lease on it is unreleased, or else a meter
   * discovered now (as {@link #discover} does). Every holder's serves are then split in one set of
   * books. Release the lease with {@link MeterLease#close()}; the last release closes the meter. A
   * steward built without a meter takes one ({@code Steward.Builder.discovery}).
   *
   * @return the lease; never throws for a missing, failing or forbidden counter
   */
  public static MeterLease lease(DiscoveryOptions options) {
    return MeterLease.acquire(options, MeterDiscovery::discover);
  }

  /**
   * Whether the meter grades anything from hardware now: a counter meter with a live counter. One
   * kept only for the re-probes of counters that failed to read grades {@code Estimator} until one
   * of them proves live.
   */
  public boolean hardwareGraded() {
    return meter instanceof CounterMeter c && !c.liveDomains().isEmpty();
  }

  /**
   * Discovers as {@link #discover(DiscoveryOptions)} does, on {@code clock}, {@code sysfs} and
   * {@code osName}'s host (a test's fake machine). Its windows cover the host packages {@code
   * options} name, and none where they name none: a fake machine has no CPU but the counters the
   * test gives it.
   */
  static MeterDiscovery discover(
      DiscoveryOptions options,
      ProbeClock clock,
      @Nullable Executor reprobeExecutor,
      SysfsReader sysfs,
      String osName) {
    Objects.requireNonNull(options, "options");
    List<EnergyChannel> channels = new ArrayList<>();
    List<CounterStatus> refused = new ArrayList<>();
    List<PowercapRefusal> unreadable = new ArrayList<>();
    options
        .raplRoot()
        .ifPresent(
            root ->
                guarded(
                    "rapl",
                    refused,
                    () ->
                        RaplDiscovery.discover(root, sysfs, clock, channels, refused, unreadable)));
    options
        .nvmlLibrary()
        .ifPresent(
            lib ->
                guarded(
                    "nvml",
                    refused,
                    () ->
                        NvmlDiscovery.discover(
                            lib, options.gpuVisibility(), clock, channels, refused)));
    if (options.ioReport()) {
      guarded("ioreport", refused, () -> IoReportDiscovery.discover(osName, channels, refused));
    }
    // A library speaks once per discovery at INFO; each counter's reason is there at DEBUG.
    for (CounterStatus s : refused) {
      LOG.debug(
          "energy counter {} unavailable ({}): {}",
          s.counter(),
          s.issue().orElseThrow(),
          s.detail());
    }
    Optional<String> advice = unreadableAdvice(unreadable);
    advice.ifPresent(LOG::warn);
    if (channels.isEmpty()) {
      return found(new EstimatorMeter(), refused, advice);
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
    meter.coveringHost(options.hostPackages().orElse(new HostPackages(Set.of(), true)));
    List<CounterStatus> statuses = meter.probeNow();
    if (meter.liveDomains().isEmpty() && statuses.stream().noneMatch(MeterDiscovery::mayAnswer)) {
      meter.close();
      return found(new EstimatorMeter(), statuses, advice);
    }
    return found(meter, statuses, advice);
  }

  /**
   * Whether a counter that is not live failed only to be read, which a later re-probe may find
   * passed (an NVML board not ready yet, a file that could not be read this once), rather than
   * behaving as no live counter does (frozen, lumpy): the meter is then kept for its re-probes
   * though none is live yet, and grades {@code Estimator} meanwhile.
   */
  private static boolean mayAnswer(CounterStatus s) {
    return s.state() == CounterState.NOT_LIVE
        && s.issue().equals(Optional.of(CounterIssue.READ_FAILED));
  }

  /** The discovery's result, after logging its one {@link #summary} line. */
  private static MeterDiscovery found(
      EnergyMeter meter, List<CounterStatus> statuses, Optional<String> advice) {
    LOG.info("{}", summary(meter, statuses));
    return new MeterDiscovery(meter, statuses, advice);
  }

  /**
   * One line saying what discovery found and how figures will be graded: the meter and the domains
   * it proved live, or why figures are {@code Estimator}, and every counter not used with its issue
   * (the facts behind each are logged at DEBUG, or as a WARN where a probe refused a counter).
   */
  static String summary(EnergyMeter meter, List<CounterStatus> statuses) {
    List<String> unused = new ArrayList<>();
    boolean anyReadable = false;
    for (CounterStatus s : statuses) {
      anyReadable |= s.state() != CounterState.UNAVAILABLE;
      if (s.state() != CounterState.LIVE) {
        unused.add(s.counter() + " " + s.issue().orElseThrow());
      }
    }
    String notUsed = unused.isEmpty() ? "" : "; not used: " + String.join(", ", unused);
    if (meter instanceof CounterMeter waiting && waiting.liveDomains().isEmpty()) {
      return "no energy counter proved live yet, so figures are graded Estimator until a periodic"
          + " re-probe of "
          + waiting.name()
          + " proves one live"
          + notUsed;
    }
    if (meter instanceof CounterMeter live) {
      return "energy meter "
          + live.name()
          + " live on "
          + live.liveDomains()
          + ": a serve on live domains only is graded HwShunt (ModelBased when it overlaps another"
          + " serve), any other Estimator"
          + notUsed;
    }
    return (anyReadable ? "no energy counter proved live" : "no readable energy counter")
        + ", so figures are graded Estimator"
        + notUsed;
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
   * access; empty when no RAPL file or folder was refused as unreadable. Logged at WARN once per
   * discovery, because without it the meter is silently an estimator on most Linux hosts. Each
   * refusal is sorted by which file failed and how ({@link PowercapRefusal}), never by its status's
   * words, which carry the powercap root's path.
   */
  static Optional<String> unreadableAdvice(List<PowercapRefusal> unreadable) {
    List<String> zones = new ArrayList<>();
    List<String> otherFile = new ArrayList<>();
    List<String> notByPermissions = new ArrayList<>();
    for (PowercapRefusal r : unreadable) {
      if (r.file() != PowercapRefusal.File.ENERGY_UJ) {
        // Only energy_uj is root-only: a zone whose range or name could not be read, or a folder
        // that could not be listed (the powercap root, a zone's), needs another remedy, and the
        // advice below would send the operator to the wrong file.
        otherFile.add(r.counter() + " (" + r.file().said() + ")");
      } else if (r.accessDenied()) {
        zones.add(r.counter());
      } else {
        // energy_uj refused other than with EACCES (a seccomp filter's EPERM, a failure the JDK
        // gives no type for): the udev rule below would not help.
        notByPermissions.add(r.counter());
      }
    }
    List<String> lines = new ArrayList<>();
    if (!zones.isEmpty()) {
      lines.add(
          "RAPL energy counters "
              + zones
              + " exist but this process may not read energy_uj (root"
              + " only since the CVE-2020-8694 fix), so CPU figures are graded Estimator. To meter"
              + " them, grant read access: a udev rule or tmpfiles entry giving a group read on"
              + " /sys/class/powercap/intel-rapl:*/energy_uj, then run in that group (see"
              + " mesh-energy's README, 'Non-root hosts'). Where SELinux or AppArmor refused it"
              + " (they refuse with the same EACCES; the audit log names the denial), their policy"
              + " must allow the read instead.");
    }
    if (!otherFile.isEmpty()) {
      lines.add(
          "RAPL energy counters "
              + otherFile
              + " exist but this process may not read the file named, which every user may read on"
              + " a stock kernel, so their figures are graded Estimator: check how /sys is mounted"
              + " into this process and any security policy over it (SELinux, AppArmor, a seccomp"
              + " filter).");
    }
    if (!notByPermissions.isEmpty()) {
      lines.add(
          "RAPL energy counters "
              + notByPermissions
              + " exist but their energy_uj could not be opened, and not because of its"
              + " permissions (each counter's status says why), so their figures are graded"
              + " Estimator; granting read access will not help: check the seccomp filter and"
              + " privileges this process runs under, and how /sys is mounted into it.");
    }
    return lines.isEmpty() ? Optional.empty() : Optional.of(String.join(" ", lines));
  }
}
