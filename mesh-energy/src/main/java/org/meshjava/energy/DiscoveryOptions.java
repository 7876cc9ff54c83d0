package org.meshjava.energy;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * Where {@link MeterDiscovery} looks for energy counters and how it proves them live. Start from
 * {@link #defaults()} and adjust with the {@code with…} methods. Immutable and thread-safe
 * (the optional GPU work must itself be safe to run on a probe thread).
 *
 * @param raplRoot the powercap sysfs directory holding {@code intel-rapl:*} zones; empty to skip
 *     RAPL
 * @param nvmlLibrary the NVML shared library, as a path (contains {@code /}) or a name the
 *     dynamic loader resolves; empty to skip NVML
 * @param ioReport whether to try Apple IOReport (only ever on macOS)
 * @param liveness the probe cadence
 * @param reprobeEvery how often every counter is re-probed (each probe burns one core for the
 *     probe duration)
 * @param stallAfter a window at least this long over which a live counter did not move at all
 *     demotes it and triggers a re-probe
 * @param gpuWork real GPU work to run in a loop while GPU counters are probed, where the caller
 *     has any; without it a GPU counter is probed while the GPU idles
 */
public record DiscoveryOptions(
    Optional<Path> raplRoot,
    Optional<String> nvmlLibrary,
    boolean ioReport,
    LivenessPolicy liveness,
    Duration reprobeEvery,
    Duration stallAfter,
    Optional<Runnable> gpuWork) {

  /** The Linux powercap tree. */
  public static final Path DEFAULT_RAPL_ROOT = Path.of("/sys/class/powercap");

  /** The NVML library name the NVIDIA driver installs. */
  public static final String DEFAULT_NVML_LIBRARY = "libnvidia-ml.so.1";

  /** Validates the options. */
  public DiscoveryOptions {
    Objects.requireNonNull(raplRoot, "raplRoot");
    Objects.requireNonNull(nvmlLibrary, "nvmlLibrary");
    Objects.requireNonNull(liveness, "liveness");
    Objects.requireNonNull(reprobeEvery, "reprobeEvery");
    Objects.requireNonNull(stallAfter, "stallAfter");
    Objects.requireNonNull(gpuWork, "gpuWork");
    if (nvmlLibrary.isPresent() && nvmlLibrary.get().isBlank()) {
      throw new IllegalArgumentException("nvmlLibrary must not be blank");
    }
    if (reprobeEvery.compareTo(liveness.probeDuration()) <= 0) {
      throw new IllegalArgumentException(
          "reprobeEvery " + reprobeEvery + " must exceed the probe duration "
              + liveness.probeDuration());
    }
    if (stallAfter.isNegative() || stallAfter.compareTo(liveness.sampleInterval()) < 0) {
      throw new IllegalArgumentException(
          "stallAfter " + stallAfter + " must be at least the sample interval "
              + liveness.sampleInterval() + ", or every short window would look stalled");
    }
  }

  /**
   * RAPL at {@code /sys/class/powercap}, NVML as {@code libnvidia-ml.so.1}, IOReport on macOS,
   * the standard probe, re-probes every 10 minutes, stall after 250 ms.
   */
  public static DiscoveryOptions defaults() {
    return new DiscoveryOptions(
        Optional.of(DEFAULT_RAPL_ROOT),
        Optional.of(DEFAULT_NVML_LIBRARY),
        true,
        LivenessPolicy.standard(),
        Duration.ofMinutes(10),
        Duration.ofMillis(250),
        Optional.empty());
  }

  /** Looks for RAPL zones under {@code root} instead. */
  public DiscoveryOptions withRaplRoot(Path root) {
    return new DiscoveryOptions(
        Optional.of(root), nvmlLibrary, ioReport, liveness, reprobeEvery, stallAfter, gpuWork);
  }

  /** Skips RAPL. */
  public DiscoveryOptions withoutRapl() {
    return new DiscoveryOptions(
        Optional.empty(), nvmlLibrary, ioReport, liveness, reprobeEvery, stallAfter, gpuWork);
  }

  /** Loads NVML from {@code library} (a path, or a name for the dynamic loader) instead. */
  public DiscoveryOptions withNvmlLibrary(String library) {
    return new DiscoveryOptions(
        raplRoot, Optional.of(library), ioReport, liveness, reprobeEvery, stallAfter, gpuWork);
  }

  /** Skips NVML. */
  public DiscoveryOptions withoutNvml() {
    return new DiscoveryOptions(
        raplRoot, Optional.empty(), ioReport, liveness, reprobeEvery, stallAfter, gpuWork);
  }

  /** Skips Apple IOReport. */
  public DiscoveryOptions withoutIoReport() {
    return new DiscoveryOptions(
        raplRoot, nvmlLibrary, false, liveness, reprobeEvery, stallAfter, gpuWork);
  }

  /** Uses {@code policy} for probes. */
  public DiscoveryOptions withLiveness(LivenessPolicy policy) {
    return new DiscoveryOptions(
        raplRoot, nvmlLibrary, ioReport, policy, reprobeEvery, stallAfter, gpuWork);
  }

  /** Re-probes every {@code period}. */
  public DiscoveryOptions withReprobeEvery(Duration period) {
    return new DiscoveryOptions(
        raplRoot, nvmlLibrary, ioReport, liveness, period, stallAfter, gpuWork);
  }

  /** Treats a live counter as stalled after a still window of {@code span}. */
  public DiscoveryOptions withStallAfter(Duration span) {
    return new DiscoveryOptions(
        raplRoot, nvmlLibrary, ioReport, liveness, reprobeEvery, span, gpuWork);
  }

  /** Runs {@code work} in a loop while GPU counters are probed. */
  public DiscoveryOptions withGpuWork(Runnable work) {
    return new DiscoveryOptions(
        raplRoot, nvmlLibrary, ioReport, liveness, reprobeEvery, stallAfter,
        Optional.of(work));
  }
}
