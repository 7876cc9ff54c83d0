package org.meshjava.core;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * Which CPU packages (sockets) this process may run on, read from Linux: the CPUs in {@code
 * Cpus_allowed_list} of {@code /proc/self/status} (the scheduler affinity, which taskset, cgroups'
 * cpusets and container runtimes narrow), each mapped to its package by {@code
 * /sys/devices/system/cpu/cpu<N>/topology/physical_package_id}, the numbering the powercap zones
 * ({@code package-<n>}) use too. Where neither file exists (not Linux) the answer is package 0
 * alone, complete: one package is the only topology such a host can meter (Apple silicon has one
 * CPU rail). Where Linux says only part of it (the list cannot be read, {@code
 * /sys/devices/system/cpu} is hidden, an online CPU's package cannot be read) the answer is what
 * was read, package 0 where nothing was, and incomplete: on a host of two sockets, package 0 alone
 * would grade a serve on the other as covered. An allowed CPU that is offline (no topology, not in
 * {@code online}) cannot run us and counts for nothing. Stateless.
 */
final class CpuPackageTopology {
  private CpuPackageTopology() {}

  /** Reads the live system. */
  static HostPackages ofThisProcess() {
    return read(Path.of("/proc/self/status"), Path.of("/sys/devices/system/cpu"));
  }

  /**
   * Reads a status file and a sysfs cpu directory (the tests give fake ones).
   *
   * @return the packages, never empty
   */
  static HostPackages read(Path status, Path cpuRoot) {
    Optional<Set<Integer>> allowed = cpuList(status, "Cpus_allowed_list:");
    Optional<Set<Integer>> online = cpuList(cpuRoot.resolve("online"), "");
    boolean linux = allowed.isPresent() || online.isPresent() || Files.exists(status);
    boolean complete = !linux || (allowed.isPresent() && online.isPresent());
    Set<Integer> packages = new TreeSet<>();
    for (int cpu : allowed.orElse(Set.of())) {
      // Read whatever online says: a package read is one the process may run on, and online can
      // be narrower than the affinity (LXCFS's CPU view, --enable-cfs, shows a container whose CPU
      // time is capped at two CPUs' "0-1", numbered anew, while it may run on every CPU its cpuset
      // allows).
      Path id = cpuRoot.resolve("cpu" + cpu).resolve("topology").resolve("physical_package_id");
      try {
        int pkg = Integer.parseInt(Files.readString(id, StandardCharsets.US_ASCII).strip());
        if (pkg >= 0) {
          packages.add(pkg);
        } else {
          complete = false;
        }
      } catch (IOException | NumberFormatException e) {
        // No topology: an offline CPU has none and cannot run us; one that may be online may, on
        // a package we cannot name.
        if (online.map(o -> o.contains(cpu)).orElse(true)) {
          complete = false;
        }
      }
    }
    if (packages.isEmpty()) {
      packages.add(0);
      complete &= !linux;
    }
    return new HostPackages(
        packages.stream().map(EnergyDomain::cpuPackage).collect(Collectors.toSet()), complete);
  }

  /**
   * The CPUs of the list on the line starting {@code key} of {@code file} (the whole file where
   * {@code key} is empty, as sysfs's {@code online}); empty when the file or the line is missing or
   * the list cannot be read.
   */
  private static Optional<Set<Integer>> cpuList(Path file, String key) {
    String text;
    try {
      text = Files.readString(file, StandardCharsets.US_ASCII);
    } catch (IOException e) {
      return Optional.empty();
    }
    for (String line : text.split("\n")) {
      if (!line.startsWith(key)) {
        continue;
      }
      Set<Integer> cpus = new TreeSet<>();
      String list = line.substring(key.length()).strip();
      try {
        for (String part : list.split(",")) {
          if (part.isBlank()) {
            continue;
          }
          int dash = part.indexOf('-');
          int from = Integer.parseInt(part.substring(0, dash < 0 ? part.length() : dash).strip());
          int to = dash < 0 ? from : Integer.parseInt(part.substring(dash + 1).strip());
          for (int c = from; c <= to && c - from < 65_536; c++) {
            cpus.add(c);
          }
        }
      } catch (NumberFormatException e) {
        return Optional.empty(); // a list we cannot read says nothing
      }
      return Optional.of(cpus);
    }
    return Optional.empty();
  }
}
