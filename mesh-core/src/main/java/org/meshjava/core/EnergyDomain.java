package org.meshjava.core;

import java.util.Objects;
import java.util.Set;

/**
 * A part of the machine an energy counter can cover (§3.3): a CPU package, its DRAM, or a GPU.
 * Backends declare the domains their work draws on; a figure is a hardware reading only when live
 * counters cover all of them.
 *
 * @param kind what sort of domain
 * @param index which one, from 0: for a CPU package and its DRAM the physical package id (as Linux
 *     and its powercap zones number sockets); for a GPU the {@code n}-th GPU this process sees,
 *     numbered as the CUDA runtime does under {@code CUDA_VISIBLE_DEVICES} (the meter binds it to a
 *     board by UUID, never by the management library's own index)
 */
public record EnergyDomain(Kind kind, int index) {

  /** The sorts of domain. */
  public enum Kind {
    /** A CPU package (socket), cores and uncore. */
    CPU_PACKAGE,
    /** The DRAM attached to a package. */
    DRAM,
    /** A GPU device. */
    GPU
  }

  /** Validates the domain. */
  public EnergyDomain {
    Objects.requireNonNull(kind, "kind");
    if (index < 0) {
      throw new IllegalArgumentException("domain index must be non-negative: " + index);
    }
  }

  /** CPU package {@code index}. */
  public static EnergyDomain cpuPackage(int index) {
    return new EnergyDomain(Kind.CPU_PACKAGE, index);
  }

  /** DRAM of package {@code index}. */
  public static EnergyDomain dram(int index) {
    return new EnergyDomain(Kind.DRAM, index);
  }

  /**
   * Every CPU package this process may run on, each as a {@link Kind#CPU_PACKAGE} domain: the
   * packages of the CPUs in its scheduler affinity, read once from Linux's {@code /proc} and {@code
   * /sys} ({@link HostPackages#ofThisProcess()}, which also says whether the list is whole);
   * package 0 alone where those say nothing (not Linux). A backend that runs on the CPU declares
   * these, because the scheduler may put its threads on any of them.
   */
  public static Set<EnergyDomain> cpuPackagesOfThisProcess() {
    return HostPackages.ofThisProcess().packages();
  }

  /** GPU {@code index}. */
  public static EnergyDomain gpu(int index) {
    return new EnergyDomain(Kind.GPU, index);
  }

  @Override
  public String toString() {
    return kind.name().toLowerCase(java.util.Locale.ROOT) + ":" + index;
  }
}
