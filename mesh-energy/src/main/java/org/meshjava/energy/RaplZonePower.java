package org.meshjava.energy;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * The most power a RAPL zone is taken to draw: what its read interval and its reset bound are
 * reckoned from (SPEC.md 40 §3).
 *
 * <p>Design note. A fixed 1 kW let a zone drawing more than 2 kW (a large multi-socket package, a
 * platform zone) wrap twice between two timed reads, undercounted by a whole range per extra wrap
 * with nothing in the values to show it. The kernel publishes each zone's power constraints: {@code
 * constraint_<n>_power_limit_uw}, the limit the zone is held to over that constraint's time window,
 * and {@code constraint_<n>_max_power_uw}, the most that limit may be set to (the package's thermal
 * design power for the long-term constraint, its maximum power for the short-term one, twice that
 * for the peak one; optional, and an error to read where the zone has no figure, as for the
 * platform zone). A limit is an average the zone may exceed for a while, so the zone is taken to
 * draw up to twice the highest figure it publishes, and never less than the fixed 1 kW: a low limit
 * (a laptop's 15 W) bounds its average, not a burst, and a bound at the limit itself would call
 * such bursts resets.
 *
 * @param watts the most power the zone is taken to draw, at least {@link PowerBound#PACKAGE}'s
 * @param source where the figure came from, for messages: the file and its value, or the default
 */
record RaplZonePower(long watts, String source) {
  private static final Pattern CONSTRAINT =
      Pattern.compile("constraint_\\d+_(?:max_power_uw|power_limit_uw)");

  /** The bound for a zone that publishes no figure above half of it. */
  static final RaplZonePower DEFAULT =
      new RaplZonePower(PowerBound.PACKAGE.watts(), "the default bound, published limits absent");

  /** Refuses a figure that admits nothing. */
  RaplZonePower {
    if (watts <= 0) {
      throw new IllegalArgumentException("watts must be positive: " + watts);
    }
    Objects.requireNonNull(source, "source");
  }

  /**
   * The zone's figure from its constraint files, or {@link #DEFAULT} when it publishes none higher.
   * A file that cannot be listed, read or parsed is passed over: the figures are optional, and the
   * kernel answers a read of one it does not have with an error.
   */
  static RaplZonePower of(Path zone, SysfsReader reader) {
    List<Path> entries;
    try {
      entries = reader.list(zone);
    } catch (IOException e) {
      return DEFAULT;
    }
    RaplZonePower highest = DEFAULT;
    for (Path entry : entries) {
      String file = entry.getFileName().toString();
      if (!CONSTRAINT.matcher(file).matches()) {
        continue;
      }
      long microwatts;
      try {
        microwatts = SysfsDecimal.parse(reader.read(entry));
      } catch (IOException | NumberFormatException e) {
        continue;
      }
      // µW to W, rounded up, then the margin; saturates rather than overflows on garbage.
      long watts = microwatts / 1_000_000 + (microwatts % 1_000_000 == 0 ? 0 : 1);
      long drawn = PowerBound.aboveLimit(watts, 0);
      if (drawn > highest.watts()) {
        highest = new RaplZonePower(drawn, "twice its " + file + " of " + microwatts + " µW");
      }
    }
    return highest;
  }
}
