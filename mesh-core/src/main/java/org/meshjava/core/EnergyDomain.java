package org.meshjava.core;

import java.util.Objects;

/**
 * A part of the machine an energy counter can cover (§3.3): a CPU package, its DRAM, or a GPU.
 * Backends declare the domains their work draws on; a figure is a hardware reading only when
 * live counters cover all of them.
 *
 * @param kind what sort of domain
 * @param index which one (socket or device number), from 0
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

  /** GPU {@code index}. */
  public static EnergyDomain gpu(int index) {
    return new EnergyDomain(Kind.GPU, index);
  }

  @Override
  public String toString() {
    return kind.name().toLowerCase(java.util.Locale.ROOT) + ":" + index;
  }
}
