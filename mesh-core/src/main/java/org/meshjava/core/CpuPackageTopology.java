package org.meshjava.core;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;

/**
 * Which CPU packages (sockets) this process may run on, read from Linux: the CPUs in {@code
 * Cpus_allowed_list} of {@code /proc/self/status} (the scheduler affinity, which taskset, cgroups'
 * cpusets and container runtimes narrow), each mapped to its package by {@code
 * /sys/devices/system/cpu/cpu<N>/topology/physical_package_id}, the numbering the powercap zones
 * ({@code package-<n>}) use too. Where these files do not exist (not Linux) or say nothing, the
 * answer is package 0 alone: one package is the only topology such a host can meter (Apple silicon
 * has one CPU rail). Stateless.
 */
final class CpuPackageTopology {
  private CpuPackageTopology() {}

  /** Reads the live system. */
  static Set<Integer> ofThisProcess() {
    return read(Path.of("/proc/self/status"), Path.of("/sys/devices/system/cpu"));
  }

  /**
   * Reads a status file and a sysfs cpu directory (the tests give fake ones).
   *
   * @return the packages, never empty
   */
  static Set<Integer> read(Path status, Path cpuRoot) {
    Set<Integer> packages = new TreeSet<>();
    Set<Integer> cpus = allowedCpus(status);
    for (int cpu : cpus) {
      Path id = cpuRoot.resolve("cpu" + cpu).resolve("topology").resolve("physical_package_id");
      try {
        int pkg = Integer.parseInt(Files.readString(id, StandardCharsets.US_ASCII).strip());
        if (pkg >= 0) {
          packages.add(pkg);
        }
      } catch (IOException | NumberFormatException e) {
        // An offline CPU has no topology; it cannot run us either.
      }
    }
    if (packages.isEmpty()) {
      packages.add(0);
    }
    return Set.copyOf(packages);
  }

  /** The CPUs of {@code Cpus_allowed_list}; empty when the file or the line is missing. */
  private static Set<Integer> allowedCpus(Path status) {
    Set<Integer> cpus = new TreeSet<>();
    String text;
    try {
      text = Files.readString(status, StandardCharsets.US_ASCII);
    } catch (IOException e) {
      return cpus;
    }
    for (String line : text.split("\n")) {
      if (!line.startsWith("Cpus_allowed_list:")) {
        continue;
      }
      String list = line.substring("Cpus_allowed_list:".length()).strip();
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
        cpus.clear(); // a list we cannot read says nothing
      }
    }
    return cpus;
  }
}
