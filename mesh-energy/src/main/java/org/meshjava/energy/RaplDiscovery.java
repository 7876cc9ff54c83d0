package org.meshjava.energy;

import java.io.IOException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.meshjava.core.EnergyDomain;

/**
 * Finds RAPL counters in a powercap tree. Both the Intel and the AMD drivers publish {@code
 * intel-rapl:<z>} zones named {@code package-<n>}, or {@code package-<n>-die-<d>} on packages of
 * several dies, with sub-zones {@code intel-rapl:<z>:<k>} (named {@code core}, {@code uncore},
 * {@code dram}). Packages map to {@link EnergyDomain.Kind#CPU_PACKAGE} and {@code dram} to {@link
 * EnergyDomain.Kind#DRAM} of the package its parent zone names; {@code core} and {@code uncore} are
 * parts of the package and {@code psys} spans the platform, so they are reported and not used.
 *
 * <p>Several zones can read one domain: the dies of one package, or their DRAM. Where they are
 * distinct counters the domain's total is their sum. Some kernels instead publish one package-wide
 * counter under every die zone (seen on multi-die AMD parts; CodeCarbon summed them and reported
 * twice the power). Zones of one domain with the same range whose readings taken back to back are
 * equal are such mirrors, and only the first is kept: two distinct µJ counters agreeing to the
 * microjoule is not a coincidence worth allowing for. Stateless.
 */
final class RaplDiscovery {
  private static final Pattern ZONE = Pattern.compile("intel-rapl:(\\d+)(?::(\\d+))?");
  private static final Pattern PACKAGE = Pattern.compile("package-(\\d+)(?:-die-(\\d+))?");

  /** How many back-to-back read pairs may show two zones apart before they count as distinct. */
  private static final int MIRROR_ATTEMPTS = 3;

  /** The file holding a zone's range, as its statuses name it. */
  static final String MAX_ENERGY_RANGE_UJ = "max_energy_range_uj";

  /** How the status of a folder (the root, or a zone's) that could not be listed begins. */
  static final String CANNOT_LIST = "cannot list ";

  /** How the status of a zone whose name file could not be read begins. */
  static final String NAME_UNREAD = "cannot read its name: ";

  private RaplDiscovery() {}

  /** {@link #discover(Path, SysfsReader, ProbeClock, List, List, List)}, the refusals not kept. */
  static void discover(
      Path root,
      SysfsReader reader,
      ProbeClock clock,
      List<EnergyChannel> found,
      List<CounterStatus> rejected) {
    discover(root, reader, clock, found, rejected, new ArrayList<>());
  }

  /**
   * Finds the zones under {@code root}: each usable one into {@code found}, each refused one into
   * {@code rejected} with its reason, and each refused because a file or folder could not be opened
   * ({@link CounterIssue#UNREADABLE}) also into {@code unreadable}, naming the file, for
   * discovery's advice.
   */
  static void discover(
      Path root,
      SysfsReader reader,
      ProbeClock clock,
      List<EnergyChannel> found,
      List<CounterStatus> rejected,
      List<PowercapRefusal> unreadable) {
    if (!Files.isDirectory(root)) {
      rejected.add(
          CounterStatus.unavailable(
              "rapl", Optional.empty(), CounterIssue.NOT_PRESENT, "no powercap tree at " + root));
      return;
    }
    List<Path> zones;
    try {
      zones = zonesUnder(root, reader, rejected, unreadable);
    } catch (IOException e) {
      unreadable.add(refusal("rapl", PowercapRefusal.File.FOLDER, e));
      rejected.add(
          CounterStatus.unavailable(
              "rapl", Optional.empty(), CounterIssue.UNREADABLE, CANNOT_LIST + root + ": " + e));
      return;
    }
    if (zones.isEmpty()) {
      rejected.add(
          CounterStatus.unavailable(
              "rapl",
              Optional.empty(),
              CounterIssue.NOT_PRESENT,
              "no intel-rapl zones under " + root));
      return;
    }
    Map<EnergyDomain, List<RaplChannel>> byDomain = new LinkedHashMap<>();
    MomentaryRetry retry = MomentaryRetry.forSysfs(clock);
    // Why each domain one of whose zones cannot be used is not read: the domain's other zones (its
    // other dies) read only part of it, and summed alone they would grade a part of the package a
    // reading of all of it. A mirror dropped within the domain is not such a zone: its counter is
    // still read.
    Map<EnergyDomain, String> unusedZone = new LinkedHashMap<>();
    // Packages whose zones the kernel names by die, the package each named zone reads (by zone
    // name), and zones whose name could not be read.
    Set<Integer> dieNamed = new HashSet<>();
    Map<String, Integer> packageOfZone = new HashMap<>();
    List<String> unnamed = new ArrayList<>();
    int before = rejected.size();
    for (Path zone : zones) {
      readable(
              root,
              zone,
              reader,
              clock,
              retry,
              rejected,
              unreadable,
              dieNamed,
              packageOfZone,
              unnamed)
          .ifPresent(c -> byDomain.computeIfAbsent(c.domain(), d -> new ArrayList<>()).add(c));
    }
    noteUnusedZones(rejected.subList(before, rejected.size()), unusedZone);
    noteUnnamedZones(unnamed, dieNamed, packageOfZone, byDomain.keySet(), unusedZone);
    Map<EnergyDomain, List<RaplChannel>> distinctByDomain = new LinkedHashMap<>();
    for (Map.Entry<EnergyDomain, List<RaplChannel>> e : byDomain.entrySet()) {
      distinctByDomain.put(e.getKey(), withoutMirrors(e.getValue(), rejected));
    }
    before = rejected.size();
    withoutSharedAcrossDomains(distinctByDomain, clock, rejected);
    noteUnusedZones(rejected.subList(before, rejected.size()), unusedZone);
    for (Map.Entry<EnergyDomain, List<RaplChannel>> e : distinctByDomain.entrySet()) {
      List<RaplChannel> distinct = e.getValue();
      String unused = unusedZone.get(e.getKey());
      if (unused != null) {
        for (RaplChannel zone : distinct) {
          rejected.add(
              CounterStatus.unavailable(
                  zone.name(),
                  Optional.of(zone.domain()),
                  CounterIssue.NOT_A_DOMAIN,
                  unused + ", so the domain is not read from the rest; not used"));
        }
        continue;
      }
      if (distinct.isEmpty()) {
        continue;
      }
      if (distinct.size() == 1) {
        found.add(distinct.getFirst());
      } else {
        found.add(new RaplDieSum("rapl:" + e.getKey(), e.getKey(), distinct));
      }
    }
  }

  /**
   * The {@code intel-rapl:<z>} zones under {@code root} and their {@code intel-rapl:<z>:<k>}
   * sub-zones, each once, sorted by name, in either layout the kernel publishes; a zone folder that
   * cannot be listed costs only the sub-zones inside it, as {@link #zonesUnder(Path, SysfsReader,
   * List, List)} says.
   *
   * @throws IOException if {@code root} cannot be listed (absent, not a folder, denied)
   */
  static List<Path> zonesUnder(Path root) throws IOException {
    return zonesUnder(root, SysfsReader.FILES, new ArrayList<>(), new ArrayList<>());
  }

  /**
   * The {@code intel-rapl:<z>} zones under {@code root} and their {@code intel-rapl:<z>:<k>}
   * sub-zones, each once, sorted by name, in either layout the kernel publishes: {@code
   * /sys/class/powercap} lists every zone side by side (links into the device tree), while the
   * device tree itself ({@code /sys/devices/virtual/powercap/intel-rapl}) holds each sub-zone as a
   * folder inside its zone's. A sub-zone counts only with its zone, beside it or inside it: a zone
   * named as the root holds its sub-zones but not itself, and is no root.
   *
   * <p>A zone folder that cannot be listed loses only the sub-zones inside it, reported in {@code
   * rejected} as {@code rapl:intel-rapl:<z>:*}: the zone itself, its sub-zones listed beside it,
   * and every other zone are still found, rather than one unlistable folder costing every RAPL
   * counter; and in {@code unreadable}, as a folder that could not be opened.
   *
   * @throws IOException if {@code root} itself cannot be listed (absent, not a folder, denied)
   */
  static List<Path> zonesUnder(
      Path root, SysfsReader reader, List<CounterStatus> rejected, List<PowercapRefusal> unreadable)
      throws IOException {
    List<Path> entries = zoneEntries(root, reader);
    Map<String, Path> zones = new TreeMap<>();
    for (Path entry : entries) {
      Matcher m = ZONE.matcher(entry.getFileName().toString());
      if (m.matches() && m.group(2) == null) {
        zones.put(entry.getFileName().toString(), entry);
      }
    }
    Map<String, Path> found = new TreeMap<>(zones);
    for (Path entry : entries) {
      Matcher m = ZONE.matcher(entry.getFileName().toString());
      if (m.matches() && m.group(2) != null && zones.containsKey(zoneOf(m))) {
        found.put(entry.getFileName().toString(), entry);
      }
    }
    for (Map.Entry<String, Path> zone : zones.entrySet()) {
      if (!Files.isDirectory(zone.getValue())) {
        continue;
      }
      List<Path> inside;
      try {
        inside = zoneEntries(zone.getValue(), reader);
      } catch (IOException e) {
        unreadable.add(refusal("rapl:" + zone.getKey() + ":*", PowercapRefusal.File.FOLDER, e));
        rejected.add(
            CounterStatus.unavailable(
                "rapl:" + zone.getKey() + ":*",
                Optional.empty(),
                CounterIssue.UNREADABLE,
                CANNOT_LIST + zone.getValue() + " for its sub-zones: " + e));
        continue;
      }
      for (Path inner : inside) {
        Matcher m = ZONE.matcher(inner.getFileName().toString());
        if (m.matches() && m.group(2) != null && zoneOf(m).equals(zone.getKey())) {
          found.putIfAbsent(inner.getFileName().toString(), inner);
        }
      }
    }
    return List.copyOf(found.values());
  }

  /** The entries of {@code folder} named as zones or sub-zones. */
  private static List<Path> zoneEntries(Path folder, SysfsReader reader) throws IOException {
    return reader.list(folder).stream()
        .filter(p -> ZONE.matcher(p.getFileName().toString()).matches())
        .toList();
  }

  /** The name of the zone a (sub-)zone name matched by {@link #ZONE} belongs to. */
  private static String zoneOf(Matcher zone) {
    return "intel-rapl:" + zone.group(1);
  }

  /**
   * The refusal of {@code file} for {@code counter} that {@code e} (a listing's failure, or a
   * {@link CounterException} built around an open's) tells of: EACCES as {@link SysfsOpenFailure}
   * tells it.
   */
  private static PowercapRefusal refusal(String counter, PowercapRefusal.File file, Exception e) {
    Throwable failure = e instanceof CounterException ? e.getCause() : e;
    return new PowercapRefusal(
        counter,
        file,
        failure instanceof FileSystemException open
            && SysfsOpenFailure.of(open) == SysfsOpenFailure.DENIED);
  }

  /**
   * Keeps {@code e}'s refusal of {@code file} in {@code unreadable} when it is one of an open
   * ({@link CounterIssue#UNREADABLE}).
   */
  private static void noteUnreadable(
      List<PowercapRefusal> unreadable,
      String counter,
      PowercapRefusal.File file,
      CounterException e) {
    if (e.issue() == CounterIssue.UNREADABLE) {
      unreadable.add(refusal(counter, file, e));
    }
  }

  /** The zone's channel if it reads one of our domains and can be read. */
  private static Optional<RaplChannel> readable(
      Path root,
      Path zone,
      SysfsReader reader,
      ProbeClock clock,
      MomentaryRetry retry,
      List<CounterStatus> rejected,
      List<PowercapRefusal> unreadable,
      Set<Integer> dieNamed,
      Map<String, Integer> packageOfZone,
      List<String> unnamed) {
    String zoneName = zone.getFileName().toString();
    String counter = "rapl:" + zoneName;
    Matcher m = ZONE.matcher(zoneName);
    if (!m.matches()) {
      return Optional.empty();
    }
    Optional<EnergyDomain> domain;
    String label;
    try {
      // Read again while the read fails once open (EIO), as energy_uj's first read is: discovery
      // looks once, and an unread name refuses every package read from die zones for good.
      label = retry.call(() -> nameOf(zone.resolve("name"), reader));
      domain = domainOf(root, m, label, reader, retry);
    } catch (CounterException | NumberFormatException e) {
      unnamed.add(counter);
      // UNREADABLE brings discovery's advice on granting read access to energy_uj, which only a
      // file that cannot be opened calls for; a read that failed once open (EIO) or a name that
      // holds no package number is READ_FAILED, as for energy_uj itself.
      CounterIssue issue = e instanceof CounterException c ? c.issue() : CounterIssue.READ_FAILED;
      if (e instanceof CounterException c) {
        noteUnreadable(unreadable, counter, PowercapRefusal.File.NAME, c);
      }
      String why = e instanceof CounterException ? e.getMessage() : e.toString();
      rejected.add(CounterStatus.unavailable(counter, Optional.empty(), issue, NAME_UNREAD + why));
      return Optional.empty();
    }
    Matcher die = PACKAGE.matcher(label);
    if (m.group(2) == null && die.matches()) {
      packageOfZone.put(zoneName, Integer.parseInt(die.group(1)));
      if (die.group(2) != null) {
        dieNamed.add(Integer.parseInt(die.group(1)));
      }
    }
    if (domain.isEmpty()) {
      rejected.add(
          CounterStatus.unavailable(
              counter,
              Optional.empty(),
              CounterIssue.NOT_A_DOMAIN,
              "zone '" + label + "' is not a package, a die of one, or its DRAM"));
      return Optional.empty();
    }
    long range;
    try {
      // Read again while the read fails once open (EIO), as the name and energy_uj are: discovery
      // looks once, and a zone whose range went unread is lost until a restart.
      range = SysfsDecimal.parse(retry.call(() -> rangeText(zone, reader)));
      if (range == 0) {
        throw new NumberFormatException("is 0: a counter with no range has nothing to count in");
      }
      if (range > RaplChannel.MAX_RANGE_UJ) {
        throw new NumberFormatException(
            "is "
                + range
                + ", more than the "
                + RaplChannel.MAX_RANGE_UJ
                + " µJ a RAPL status register holds at its coarsest unit (1 J): no RAPL counter's"
                + " range, so its wraps cannot be counted");
      }
    } catch (CounterException e) {
      noteUnreadable(unreadable, counter, PowercapRefusal.File.MAX_ENERGY_RANGE_UJ, e);
      rejected.add(CounterStatus.unavailable(counter, domain, e));
      return Optional.empty();
    } catch (NumberFormatException e) {
      // Read, but no range: READ_FAILED, as for an energy_uj that is not a number. UNREADABLE
      // would bring discovery's advice on granting read access, which cannot help here.
      rejected.add(
          CounterStatus.unavailable(
              counter, domain, CounterIssue.READ_FAILED, "max_energy_range_uj " + e.getMessage()));
      return Optional.empty();
    }
    RaplZonePower power = RaplZonePower.of(zone, reader);
    RaplChannel channel =
        new RaplChannel(
            counter, domain.get(), zone.resolve("energy_uj"), range, power.watts(), reader, clock);
    if (channel.maxReadGapNanos() < RaplChannel.MIN_WRAP_NANOS) {
      rejected.add(
          CounterStatus.unavailable(
              counter,
              domain,
              CounterIssue.READ_FAILED, // not UNREADABLE, which means denied and gets its advice
              "max_energy_range_uj "
                  + range
                  + " wraps in under a second at "
                  + power.watts()
                  + " W ("
                  + power.source()
                  + "): it cannot be read often enough to see every wrap, so its domain is"
                  + " estimated; a power limit set above what the zone draws can be lowered"));
      return Optional.empty();
    }
    long raw;
    try {
      // The mirror and range checks are made on this value, so a zone whose read fails for the
      // moment (EIO) is read again here rather than kept unread for the re-probes. Text that is no
      // number is the file's content, not a moment's failure, and is refused at once.
      raw =
          retry.call(
              channel::readRaw,
              e -> e.issue() == CounterIssue.READ_FAILED && e.getCause() instanceof IOException);
    } catch (CounterException e) {
      noteUnreadable(unreadable, counter, PowercapRefusal.File.ENERGY_UJ, e);
      rejected.add(CounterStatus.unavailable(counter, domain, e));
      return Optional.empty();
    }
    if (raw > range) {
      // The zone's two files disagree: no wrap or total can be told from them. Used, it would fail
      // every read of every probe (as out of range) and be re-probed, disturbing every window, for
      // as long as the process runs.
      rejected.add(
          CounterStatus.unavailable(
              counter,
              domain,
              CounterIssue.READ_FAILED,
              "energy_uj reads "
                  + raw
                  + ", above its max_energy_range_uj "
                  + range
                  + ": the zone's files disagree, so its wraps cannot be told from a reset"));
      return Optional.empty();
    }
    return Optional.of(channel);
  }

  /** Records, for each domain a refused zone was found to read, why the rest read only part. */
  private static void noteUnusedZones(
      List<CounterStatus> refused, Map<EnergyDomain, String> unusedZone) {
    for (CounterStatus s : refused) {
      s.domain()
          .ifPresent(
              d ->
                  unusedZone.putIfAbsent(
                      d, "reads only part of " + d + ": its zone " + s.counter() + " is not used"));
    }
  }

  /**
   * Records each domain read from the zones of dies as possibly partial when a zone's name could
   * not be read: that zone may be one of its dies (or a die's DRAM), and nothing tells which
   * package it belongs to. A sub-zone is never a package, so one alone leaves the packages read,
   * and it can be DRAM only of the package its zone names, where that name was read. A package the
   * kernel names without a die ({@code package-<n>}) is whole in its one zone, as the kernel names
   * every zone by die where packages have several, so it and its DRAM are kept.
   */
  private static void noteUnnamedZones(
      List<String> unnamed,
      Set<Integer> dieNamed,
      Map<String, Integer> packageOfZone,
      Set<EnergyDomain> domains,
      Map<EnergyDomain, String> unusedZone) {
    for (String counter : unnamed) {
      Matcher m = ZONE.matcher(counter.substring(counter.indexOf(':') + 1));
      boolean aZone = !m.matches() || m.group(2) == null;
      // The package whose DRAM an unnamed sub-zone may read; any, where its zone is unnamed too.
      Integer pkg = aZone ? null : packageOfZone.get(zoneOf(m));
      for (EnergyDomain d : domains) {
        boolean mayRead =
            aZone || (d.kind() == EnergyDomain.Kind.DRAM && (pkg == null || pkg == d.index()));
        if (dieNamed.contains(d.index()) && mayRead) {
          unusedZone.putIfAbsent(
              d,
              "may read only part of "
                  + d
                  + ": zone "
                  + counter
                  + ", whose name cannot be read, may be one of its zones");
        }
      }
    }
  }

  /** Drops every zone that mirrors an earlier one of the same domain, reporting it. */
  private static List<RaplChannel> withoutMirrors(
      List<RaplChannel> zones, List<CounterStatus> rejected) {
    List<RaplChannel> kept = new ArrayList<>();
    for (RaplChannel zone : zones) {
      Optional<RaplChannel> original = kept.stream().filter(k -> mirrors(k, zone)).findFirst();
      if (original.isPresent()) {
        rejected.add(
            CounterStatus.unavailable(
                zone.name(),
                Optional.of(zone.domain()),
                CounterIssue.NOT_A_DOMAIN,
                "mirrors "
                    + original.get().name()
                    + " (same counter published twice); counted"
                    + " once"));
      } else {
        kept.add(zone);
      }
    }
    return kept;
  }

  /**
   * Drops every zone that publishes the same counter as a zone of another domain (two packages, or
   * a package and a DRAM zone, reading alike to the microjoule and moving together), reporting
   * each: such a counter reads no one of those domains, so a window on one would be charged the
   * other's energy and a window on both would count it twice, each graded a reading. Unlike a die
   * mirror within one package, neither zone can be kept. Equal readings alone are not enough across
   * domains (counters at rest may agree, as fresh ones at 0 do): the two must read equal again
   * after both have moved, {@link #MOVE_WAIT_NANOS} later.
   */
  private static void withoutSharedAcrossDomains(
      Map<EnergyDomain, List<RaplChannel>> byDomain,
      ProbeClock clock,
      List<CounterStatus> rejected) {
    List<RaplChannel> all = new ArrayList<>();
    byDomain.values().forEach(all::addAll);
    Map<RaplChannel, RaplChannel> shared = new LinkedHashMap<>();
    for (int i = 0; i < all.size(); i++) {
      for (int j = i + 1; j < all.size(); j++) {
        RaplChannel a = all.get(i);
        RaplChannel b = all.get(j);
        if (!a.domain().equals(b.domain()) && mirrorsWhileMoving(a, b, clock)) {
          shared.putIfAbsent(a, b);
          shared.putIfAbsent(b, a);
        }
      }
    }
    for (Map.Entry<RaplChannel, RaplChannel> e : shared.entrySet()) {
      RaplChannel zone = e.getKey();
      byDomain.getOrDefault(zone.domain(), new ArrayList<>()).remove(zone);
      rejected.add(
          CounterStatus.unavailable(
              zone.name(),
              Optional.of(zone.domain()),
              CounterIssue.NOT_A_DOMAIN,
              "publishes the same counter as "
                  + e.getValue().name()
                  + " of "
                  + e.getValue().domain()
                  + " (equal readings, moving together), so it reads neither domain alone; not"
                  + " used"));
    }
  }

  /**
   * How long apart the two equal readings of zones taken for one counter across domains are: two
   * refreshes of the energy status register (about 1 ms each), so a moving counter has moved.
   */
  static final long MOVE_WAIT_NANOS = 2_000_000L;

  private static boolean mirrorsWhileMoving(RaplChannel a, RaplChannel b, ProbeClock clock) {
    OptionalLong first = equalReading(a, b);
    if (first.isEmpty()) {
      return false;
    }
    clock.idleUntil(clock.nanoTime() + MOVE_WAIT_NANOS);
    OptionalLong second = equalReading(a, b);
    return second.isPresent() && second.getAsLong() != first.getAsLong();
  }

  /**
   * A value both zones read back to back, within {@link #MIRROR_ATTEMPTS} tries. A try whose read
   * fails is spent like one that read apart: a single failed read (an EIO of the moment) must not
   * make one counter published twice pass for two, each then counted.
   */
  private static OptionalLong equalReading(RaplChannel a, RaplChannel b) {
    if (a.rangeUj() != b.rangeUj()) {
      return OptionalLong.empty();
    }
    for (int i = 0; i < MIRROR_ATTEMPTS; i++) {
      try {
        long value = a.readRaw();
        if (value == b.readRaw()) {
          return OptionalLong.of(value);
        }
      } catch (CounterException e) {
        // the next try reads both again
      }
    }
    return OptionalLong.empty();
  }

  private static boolean mirrors(RaplChannel a, RaplChannel b) {
    return equalReading(a, b).isPresent();
  }

  /**
   * Reads a zone's {@code name} file.
   *
   * @throws CounterException as {@link #zoneFile} says
   */
  private static String nameOf(Path file, SysfsReader reader) throws CounterException {
    return zoneFile(file, PowercapRefusal.File.NAME, file.toString(), reader);
  }

  /**
   * The text of {@code zone}'s {@code max_energy_range_uj}.
   *
   * @throws CounterException as {@link #zoneFile} says
   */
  private static String rangeText(Path zone, SysfsReader reader) throws CounterException {
    return zoneFile(
        zone.resolve(MAX_ENERGY_RANGE_UJ),
        PowercapRefusal.File.MAX_ENERGY_RANGE_UJ,
        MAX_ENERGY_RANGE_UJ,
        reader);
  }

  /**
   * The text of a zone's file other than {@code energy_uj} ({@code name}, {@code
   * max_energy_range_uj}), {@code said} as its status names it. Reported as {@code energy_uj} would
   * be (§3.3): a file that is not there, or a path that leads to none, is NOT_PRESENT; one denied
   * is UNREADABLE, named as the file it is, since the read access discovery's advice grants is
   * energy_uj's and this file is readable by every user on a stock kernel; any other failure to
   * open is named by what it is ({@link SysfsOpenFailure}). A read that failed once open (EIO) is
   * the driver's answer of the moment, READ_FAILED as for energy_uj, and tried again.
   *
   * @throws CounterException with the issue and words above
   */
  private static String zoneFile(
      Path file, PowercapRefusal.File which, String said, SysfsReader reader)
      throws CounterException {
    try {
      return reader.read(file);
    } catch (FileSystemException e) {
      SysfsOpenFailure failure = SysfsOpenFailure.of(e);
      throw new CounterException(failure.issue(), failure.detail(which, file, e), e);
    } catch (IOException e) {
      throw new CounterException(CounterIssue.READ_FAILED, "reading " + said + " failed: " + e, e);
    }
  }

  private static Optional<EnergyDomain> domainOf(
      Path root, Matcher zone, String label, SysfsReader reader, MomentaryRetry retry)
      throws CounterException {
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
    Path parent = root.resolve(zoneOf(zone)).resolve("name");
    if (Files.exists(parent)) {
      Matcher p = PACKAGE.matcher(retry.call(() -> nameOf(parent, reader)));
      if (p.matches()) {
        pkg = Integer.parseInt(p.group(1));
      }
    }
    return Optional.of(EnergyDomain.dram(pkg));
  }
}
