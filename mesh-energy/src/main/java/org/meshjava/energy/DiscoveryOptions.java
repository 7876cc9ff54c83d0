package org.meshjava.energy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;
import org.meshjava.core.HostPackages;

/**
 * Where {@link MeterDiscovery} looks for energy counters and how it proves them live. Start from
 * {@link #defaults()} and adjust with the {@code with…} methods. Immutable and thread-safe (the
 * optional GPU work must itself be safe to run on a probe thread).
 *
 * <p>Options are equal when every component is (the GPU work by identity), and {@link
 * MeterDiscovery#lease} shares one meter among holders with equal options: options naming another
 * RAPL root, a test's fake powercap tree say, get a meter of their own.
 *
 * @param raplRoot the powercap sysfs directory holding {@code intel-rapl:*} zones; empty to skip
 *     RAPL
 * @param nvmlLibrary the NVML shared library, as a path (contains {@code /}) or a name the dynamic
 *     loader resolves; empty to skip NVML
 * @param ioReport whether to try Apple IOReport (only ever on macOS)
 * @param liveness the probe cadence of RAPL and IOReport counters
 * @param nvmlLiveness the probe cadence of NVML counters, which refresh far less often
 * @param reprobeEvery how often every counter is re-probed (each probe burns one core for the probe
 *     duration, and no window across it is graded from counters)
 * @param gpuWork real GPU work to run in a loop while GPU counters are probed, where the caller has
 *     any; without it a GPU counter is probed while the GPU idles
 * @param gpuVisibility which GPUs this process sees, so an engine's {@code gpu:n} is bound to the
 *     right board
 * @param hostPackages the CPU packages a serve of this process may run on, which every window
 *     covers ({@link CounterMeter}); empty for this process's own ({@link
 *     HostPackages#ofThisProcess()})
 */
public record DiscoveryOptions(
    Optional<Path> raplRoot,
    Optional<String> nvmlLibrary,
    boolean ioReport,
    LivenessPolicy liveness,
    LivenessPolicy nvmlLiveness,
    Duration reprobeEvery,
    Optional<Runnable> gpuWork,
    GpuVisibility gpuVisibility,
    Optional<HostPackages> hostPackages) {

  /** The Linux powercap tree. */
  public static final Path DEFAULT_RAPL_ROOT = Path.of("/sys/class/powercap");

  /** The NVML library name the NVIDIA driver installs. */
  public static final String DEFAULT_NVML_LIBRARY = "libnvidia-ml.so.1";

  /** Validates the options. */
  public DiscoveryOptions {
    Objects.requireNonNull(raplRoot, "raplRoot");
    Objects.requireNonNull(nvmlLibrary, "nvmlLibrary");
    Objects.requireNonNull(liveness, "liveness");
    Objects.requireNonNull(nvmlLiveness, "nvmlLiveness");
    Objects.requireNonNull(reprobeEvery, "reprobeEvery");
    Objects.requireNonNull(gpuWork, "gpuWork");
    Objects.requireNonNull(gpuVisibility, "gpuVisibility");
    Objects.requireNonNull(hostPackages, "hostPackages");
    if (nvmlLibrary.isPresent() && nvmlLibrary.get().isBlank()) {
      throw new IllegalArgumentException("nvmlLibrary must not be blank");
    }
    Duration longestProbe =
        liveness.probeDuration().compareTo(nvmlLiveness.probeDuration()) >= 0
            ? liveness.probeDuration()
            : nvmlLiveness.probeDuration();
    if (reprobeEvery.compareTo(longestProbe) <= 0) {
      throw new IllegalArgumentException(
          "reprobeEvery " + reprobeEvery + " must exceed the probe duration " + longestProbe);
    }
  }

  /**
   * RAPL at {@code /sys/class/powercap}, NVML as {@code libnvidia-ml.so.1}, IOReport on macOS, the
   * standard probe ({@link LivenessPolicy#standard()}) and NVML's ({@link LivenessPolicy#nvml()}),
   * re-probes every 10 minutes, GPUs as this process's environment makes them visible, this
   * process's CPU packages.
   */
  public static DiscoveryOptions defaults() {
    return new DiscoveryOptions(
        Optional.of(DEFAULT_RAPL_ROOT),
        Optional.of(DEFAULT_NVML_LIBRARY),
        true,
        LivenessPolicy.standard(),
        LivenessPolicy.nvml(),
        Duration.ofMinutes(10),
        Optional.empty(),
        GpuVisibility.fromEnvironment(),
        Optional.empty());
  }

  /** Looks for RAPL zones under {@code root} instead. */
  public DiscoveryOptions withRaplRoot(Path root) {
    return with(o -> o.raplRoot = Optional.of(root));
  }

  /**
   * Looks for RAPL zones under {@code root} instead, once it is checked to be a folder holding at
   * least one {@code intel-rapl:*} zone. For a root an operator names (a container that mounts the
   * host's powercap tree elsewhere): a named folder that holds no zone is a mistake in the setting
   * (a typo, a mount that is missing, a zone or a folder above it named instead of the tree), which
   * unchecked would leave every figure {@code Estimator} with one log line to say why. Whether the
   * zones can be read, and are live, is still discovery's to find out: {@code energy_uj} is
   * root-only on most hosts (see the module README).
   *
   * @throws IllegalArgumentException naming the folder, what it lacks, and what to name instead
   */
  public DiscoveryOptions withCheckedRaplRoot(Path root) {
    Objects.requireNonNull(root, "root");
    if (!Files.isDirectory(root)) {
      throw new IllegalArgumentException(
          root
              + " is not a folder; name the powercap folder that holds the intel-rapl:* zones"
              + " ("
              + DEFAULT_RAPL_ROOT
              + " on the host, wherever it is mounted in a container), or leave the setting out");
    }
    List<Path> zones;
    try {
      zones = RaplDiscovery.zonesUnder(root);
    } catch (IOException e) {
      throw new IllegalArgumentException("cannot list " + root + ": " + e, e);
    }
    if (zones.isEmpty()) {
      throw new IllegalArgumentException(
          root
              + " holds no intel-rapl:* zone; name the powercap folder itself (the one holding"
              + " intel-rapl:0, as "
              + DEFAULT_RAPL_ROOT
              + " does), not a zone or a folder above it; a host whose kernel publishes no RAPL"
              + " zone has none to name, so leave the setting out there");
    }
    return withRaplRoot(root);
  }

  /** Skips RAPL. */
  public DiscoveryOptions withoutRapl() {
    return with(o -> o.raplRoot = Optional.empty());
  }

  /** Loads NVML from {@code library} (a path, or a name for the dynamic loader) instead. */
  public DiscoveryOptions withNvmlLibrary(String library) {
    return with(o -> o.nvmlLibrary = Optional.of(library));
  }

  /** Skips NVML. */
  public DiscoveryOptions withoutNvml() {
    return with(o -> o.nvmlLibrary = Optional.empty());
  }

  /** Skips Apple IOReport. */
  public DiscoveryOptions withoutIoReport() {
    return with(o -> o.ioReport = false);
  }

  /** Uses {@code policy} for RAPL and IOReport probes. */
  public DiscoveryOptions withLiveness(LivenessPolicy policy) {
    return with(o -> o.liveness = policy);
  }

  /** Uses {@code policy} for NVML probes. */
  public DiscoveryOptions withNvmlLiveness(LivenessPolicy policy) {
    return with(o -> o.nvmlLiveness = policy);
  }

  /** Re-probes every {@code period}. */
  public DiscoveryOptions withReprobeEvery(Duration period) {
    return with(o -> o.reprobeEvery = period);
  }

  /** Runs {@code work} in a loop while GPU counters are probed. */
  public DiscoveryOptions withGpuWork(Runnable work) {
    return with(o -> o.gpuWork = Optional.of(work));
  }

  /** Binds GPU domains as {@code visibility} says rather than as the environment does. */
  public DiscoveryOptions withGpuVisibility(GpuVisibility visibility) {
    return with(o -> o.gpuVisibility = visibility);
  }

  /**
   * Has every window cover {@code packages} rather than the packages read from this process's
   * {@code /proc} and {@code /sys} (a container that mounts the host's files elsewhere: {@link
   * HostPackages#read}; a test's fake tree). Where they are not {@link HostPackages#complete()}, no
   * window is graded a reading.
   */
  public DiscoveryOptions withHostPackages(HostPackages packages) {
    Objects.requireNonNull(packages, "packages");
    return with(o -> o.hostPackages = Optional.of(packages));
  }

  /** A copy of these options with {@code change} applied, validated as any options are. */
  private DiscoveryOptions with(Consumer<Draft> change) {
    Draft draft = new Draft(this);
    change.accept(draft);
    return draft.options();
  }

  /**
   * The components of options being changed, so that each {@code with…} method names only the one
   * it changes instead of passing all nine on.
   */
  private static final class Draft {
    Optional<Path> raplRoot;
    Optional<String> nvmlLibrary;
    boolean ioReport;
    LivenessPolicy liveness;
    LivenessPolicy nvmlLiveness;
    Duration reprobeEvery;
    Optional<Runnable> gpuWork;
    GpuVisibility gpuVisibility;
    Optional<HostPackages> hostPackages;

    Draft(DiscoveryOptions from) {
      raplRoot = from.raplRoot;
      nvmlLibrary = from.nvmlLibrary;
      ioReport = from.ioReport;
      liveness = from.liveness;
      nvmlLiveness = from.nvmlLiveness;
      reprobeEvery = from.reprobeEvery;
      gpuWork = from.gpuWork;
      gpuVisibility = from.gpuVisibility;
      hostPackages = from.hostPackages;
    }

    DiscoveryOptions options() {
      return new DiscoveryOptions(
          raplRoot,
          nvmlLibrary,
          ioReport,
          liveness,
          nvmlLiveness,
          reprobeEvery,
          gpuWork,
          gpuVisibility,
          hostPackages);
    }
  }
}
