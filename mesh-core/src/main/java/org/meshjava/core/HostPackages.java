package org.meshjava.core;

import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.Objects;
import java.util.Set;

/**
 * The CPU packages a serve of this process may draw on, and whether that list is known to be whole
 * (§3.3). A serve runs on this host whatever else it drives (its thread launches the engine's GPU
 * work, tokenizes, samples and waits, on whichever package the scheduler gives it), so a figure for
 * it covers these packages as well as the domains its backend declared ({@link #cover}). A list
 * read from a host that hid part of its topology (a container that masks {@code
 * /sys/devices/system/cpu}, an allowed CPU whose package cannot be read) may lack a package the
 * serve ran on: it is not {@link #complete()}, and no figure that relies on it is a hardware
 * reading.
 *
 * <p>Immutable and thread-safe.
 *
 * @param packages the packages, each a {@link EnergyDomain.Kind#CPU_PACKAGE} domain; empty only for
 *     a process whose serves draw on no package a meter is asked about (a test's fake machine)
 * @param complete whether {@code packages} is known to hold every package the process may run on
 */
public record HostPackages(Set<EnergyDomain> packages, boolean complete) {

  /** Validates the packages and copies them. */
  public HostPackages {
    packages = Set.copyOf(Objects.requireNonNull(packages, "packages"));
    for (EnergyDomain d : packages) {
      if (d.kind() != EnergyDomain.Kind.CPU_PACKAGE) {
        throw new IllegalArgumentException("not a CPU package: " + d);
      }
    }
  }

  /**
   * This process's packages, read once from Linux's {@code /proc/self/status} and {@code
   * /sys/devices/system/cpu} ({@link #read}); package 0 alone, complete, where neither exists (not
   * Linux: one package is the only topology such a host can meter).
   */
  public static HostPackages ofThisProcess() {
    return OfThisProcess.ALL;
  }

  /**
   * Reads the packages of the CPUs in {@code Cpus_allowed_list} of {@code status} (a {@code
   * /proc/<pid>/status} file) from {@code cpuRoot} (a {@code /sys/devices/system/cpu} folder): for
   * a container that mounts the host's files elsewhere, or a test's fake tree. The answer is
   * complete only where every allowed CPU that {@code cpuRoot/online} lists has its package read,
   * or where neither file exists (not Linux, package 0 alone); a list that cannot be read, a hidden
   * {@code cpuRoot}, or an online allowed CPU without a readable package make it incomplete, with
   * package 0 standing in where no package was read.
   */
  public static HostPackages read(Path status, Path cpuRoot) {
    return CpuPackageTopology.read(status, cpuRoot);
  }

  /**
   * The domains a window around a serve of this process covers: those its backend {@code declared}
   * and, where they name any domain, every one of these packages as well. A declaration without
   * them (a GPU alone, one package of two) claims less than the serve drew, and live counters on it
   * would be graded a reading of the whole request, which §3.3 forbids. An empty declaration (work
   * done elsewhere, a remote server) stays empty and is the estimate.
   *
   * @return an unmodifiable set; {@code declared} itself where it already holds every package
   */
  public Set<EnergyDomain> cover(Set<EnergyDomain> declared) {
    Objects.requireNonNull(declared, "declared");
    if (declared.isEmpty() || declared.containsAll(packages)) {
      return declared;
    }
    Set<EnergyDomain> covered = new LinkedHashSet<>(declared);
    covered.addAll(packages);
    return Collections.unmodifiableSet(covered);
  }

  /** Holds the answer, computed on first use. */
  private static final class OfThisProcess {
    static final HostPackages ALL = CpuPackageTopology.ofThisProcess();
  }
}
