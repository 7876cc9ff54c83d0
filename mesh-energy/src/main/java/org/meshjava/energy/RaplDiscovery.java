package org.meshjava.energy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.meshjava.core.EnergyDomain;

/**
 * Finds RAPL counters in a powercap tree. Both the Intel and the AMD drivers publish
 * {@code intel-rapl:<package>} zones (named {@code package-<n>}) with sub-zones
 * {@code intel-rapl:<package>:<k>} (named {@code core}, {@code uncore}, {@code dram}). Packages
 * map to {@link EnergyDomain.Kind#CPU_PACKAGE} and {@code dram} to {@link EnergyDomain.Kind#DRAM};
 * {@code core} and {@code uncore} are parts of the package and {@code psys} spans the platform,
 * so they are reported and not used. Stateless.
 */
final class RaplDiscovery {
  private static final Pattern ZONE = Pattern.compile("intel-rapl:(\\d+)(?::(\\d+))?");
  private static final Pattern PACKAGE = Pattern.compile("package-(\\d+)");

  private RaplDiscovery() {}

  static void discover(
      Path root, SysfsReader reader, List<EnergyChannel> found, List<CounterStatus> rejected) {
    if (!Files.isDirectory(root)) {
      rejected.add(
          CounterStatus.unavailable(
              "rapl", Optional.empty(), CounterIssue.NOT_PRESENT, "no powercap tree at " + root));
      return;
    }
    List<Path> zones = new ArrayList<>();
    try (Stream<Path> entries = Files.list(root)) {
      entries
          .filter(p -> ZONE.matcher(p.getFileName().toString()).matches())
          .sorted()
          .forEach(zones::add);
    } catch (IOException e) {
      rejected.add(
          CounterStatus.unavailable(
              "rapl", Optional.empty(), CounterIssue.UNREADABLE, "cannot list " + root + ": " + e));
      return;
    }
    if (zones.isEmpty()) {
      rejected.add(
          CounterStatus.unavailable(
              "rapl", Optional.empty(), CounterIssue.NOT_PRESENT, "no intel-rapl zones under "
                  + root));
      return;
    }
    for (Path zone : zones) {
      String zoneName = zone.getFileName().toString();
      String counter = "rapl:" + zoneName;
      Matcher m = ZONE.matcher(zoneName);
      if (!m.matches()) {
        continue;
      }
      Optional<EnergyDomain> domain;
      String label;
      try {
        label = reader.read(zone.resolve("name"));
        domain = domainOf(root, m, label, reader);
      } catch (IOException | NumberFormatException e) {
        rejected.add(
            CounterStatus.unavailable(
                counter, Optional.empty(), CounterIssue.UNREADABLE, "cannot read its name: " + e));
        continue;
      }
      if (domain.isEmpty()) {
        rejected.add(
            CounterStatus.unavailable(
                counter, Optional.empty(), CounterIssue.NOT_A_DOMAIN,
                "zone '" + label + "' is not a package or its DRAM"));
        continue;
      }
      long range;
      try {
        range = Long.parseLong(reader.read(zone.resolve("max_energy_range_uj")));
        if (range <= 0) {
          throw new NumberFormatException("non-positive");
        }
      } catch (IOException | NumberFormatException e) {
        rejected.add(
            CounterStatus.unavailable(
                counter, domain, CounterIssue.UNREADABLE, "no usable max_energy_range_uj: " + e));
        continue;
      }
      RaplChannel channel =
          new RaplChannel(counter, domain.get(), zone.resolve("energy_uj"), range, reader);
      try {
        channel.readRaw();
      } catch (CounterException e) {
        rejected.add(CounterStatus.unavailable(counter, domain, e.issue(), e.getMessage()));
        continue;
      }
      found.add(channel);
    }
  }

  private static Optional<EnergyDomain> domainOf(
      Path root, Matcher zone, String label, SysfsReader reader) throws IOException {
    if (zone.group(2) == null) {
      Matcher p = PACKAGE.matcher(label);
      return p.matches()
          ? Optional.of(EnergyDomain.cpuPackage(Integer.parseInt(p.group(1))))
          : Optional.empty();
    }
    if (!label.equals("dram")) {
      return Optional.empty();
    }
    // DRAM belongs to the package its parent zone names; fall back to the zone number.
    int pkg = Integer.parseInt(zone.group(1));
    Path parent = root.resolve("intel-rapl:" + zone.group(1)).resolve("name");
    if (Files.exists(parent)) {
      Matcher p = PACKAGE.matcher(reader.read(parent));
      if (p.matches()) {
        pkg = Integer.parseInt(p.group(1));
      }
    }
    return Optional.of(EnergyDomain.dram(pkg));
  }
}
