package org.meshjava.energy;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * Where {@link MeterDiscovery} looks for energy counters and how it proves them live. Start from
 * {@link #defaults()} and adjust with the {@code with…} methods. Immutable and thread-safe (the
 * optional GPU work must itself be safe to run on a probe thread).
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
 */
public record DiscoveryOptions(
    Optional<Path> raplRoot,
    Optional<String> nvmlLibrary,
    boolean ioReport,
    LivenessPolicy liveness,
    LivenessPolicy nvmlLiveness,
    Duration reprobeEvery,
    Optional<Runnable> gpuWork,
    GpuVisibility gpuVisibility) {

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
   * re-probes every 10 minutes, GPUs as this process's environment makes them visible.
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
        GpuVisibility.fromEnvironment());
  }

  /** Looks for RAPL zones under {@code root} instead. */
  public DiscoveryOptions withRaplRoot(Path root) {
    return new DiscoveryOptions(
        Optional.of(root),
        nvmlLibrary,
        ioReport,
        liveness,
        nvmlLiveness,
        reprobeEvery,
        gpuWork,
        gpuVisibility);
  }

  /** Skips RAPL. */
  public DiscoveryOptions withoutRapl() {
    return new DiscoveryOptions(
        Optional.empty(),
        nvmlLibrary,
        ioReport,
        liveness,
        nvmlLiveness,
        reprobeEvery,
        gpuWork,
        gpuVisibility);
  }

  /** Loads NVML from {@code library} (a path, or a name for the dynamic loader) instead. */
  public DiscoveryOptions withNvmlLibrary(String library) {
    return new DiscoveryOptions(
        raplRoot,
        Optional.of(library),
        ioReport,
        liveness,
        nvmlLiveness,
        reprobeEvery,
        gpuWork,
        gpuVisibility);
  }

  /** Skips NVML. */
  public DiscoveryOptions withoutNvml() {
    return new DiscoveryOptions(
        raplRoot,
        Optional.empty(),
        ioReport,
        liveness,
        nvmlLiveness,
        reprobeEvery,
        gpuWork,
        gpuVisibility);
  }

  /** Skips Apple IOReport. */
  public DiscoveryOptions withoutIoReport() {
    return new DiscoveryOptions(
        raplRoot, nvmlLibrary, false, liveness, nvmlLiveness, reprobeEvery, gpuWork, gpuVisibility);
  }

  /** Uses {@code policy} for RAPL and IOReport probes. */
  public DiscoveryOptions withLiveness(LivenessPolicy policy) {
    return new DiscoveryOptions(
        raplRoot,
        nvmlLibrary,
        ioReport,
        policy,
        nvmlLiveness,
        reprobeEvery,
        gpuWork,
        gpuVisibility);
  }

  /** Uses {@code policy} for NVML probes. */
  public DiscoveryOptions withNvmlLiveness(LivenessPolicy policy) {
    return new DiscoveryOptions(
        raplRoot, nvmlLibrary, ioReport, liveness, policy, reprobeEvery, gpuWork, gpuVisibility);
  }

  /** Re-probes every {@code period}. */
  public DiscoveryOptions withReprobeEvery(Duration period) {
    return new DiscoveryOptions(
        raplRoot, nvmlLibrary, ioReport, liveness, nvmlLiveness, period, gpuWork, gpuVisibility);
  }

  /** Runs {@code work} in a loop while GPU counters are probed. */
  public DiscoveryOptions withGpuWork(Runnable work) {
    return new DiscoveryOptions(
        raplRoot,
        nvmlLibrary,
        ioReport,
        liveness,
        nvmlLiveness,
        reprobeEvery,
        Optional.of(work),
        gpuVisibility);
  }

  /** Binds GPU domains as {@code visibility} says rather than as the environment does. */
  public DiscoveryOptions withGpuVisibility(GpuVisibility visibility) {
    return new DiscoveryOptions(
        raplRoot, nvmlLibrary, ioReport, liveness, nvmlLiveness, reprobeEvery, gpuWork, visibility);
  }
}
