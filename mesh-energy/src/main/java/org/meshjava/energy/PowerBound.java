package org.meshjava.energy;

/**
 * The most energy a domain can plausibly draw in a span of time: an increment of its counter larger
 * than that is no reading of work but a fault (a reset, a driver republishing garbage, a bit flip),
 * and must not reach a window as energy (§3.3).
 *
 * @param watts the most power the domain is assumed to draw
 * @param slackNanos time added to every span: a counter's value lags the energy drawn by up to one
 *     refresh, and one republished in lumps by a whole lump
 */
record PowerBound(long watts, long slackNanos) {

  /**
   * A CPU package, its DRAM, or an Apple SoC rail: server packages are rated at up to about 500 W,
   * and twice that leaves room for excursions above the rating. 100 ms of slack (100 J) lets a
   * counter republished in lumps fail its probe as {@code LUMPY}, which is what it is, rather than
   * be called reset.
   */
  static final PowerBound PACKAGE = new PowerBound(1_000, 100_000_000L);

  /**
   * A GPU board that does not say how far its power limit may be set: data-centre boards are rated
   * at up to about 1 kW (B200, 2024), and twice that leaves room for excursions. A board that does
   * is held to twice that figure where higher ({@link NvmlChannel#powerBound}). NVML refreshes its
   * counter every 20 to 100 ms, within the same 100 ms of slack.
   */
  static final PowerBound GPU_BOARD = new PowerBound(2_000, 100_000_000L);

  /**
   * How far above the highest power limit a counter's domain publishes it is taken to draw: a limit
   * is an average the domain may exceed for a while (a package's PL2 over PL1, a board's excursions
   * over its limit), so twice it, as for a RAPL zone's constraints ({@link RaplZonePower}) and a
   * GPU board's settable limit.
   */
  static final long MARGIN = 2;

  /**
   * The most power a domain publishing {@code publishedWatts} as its highest limit is taken to
   * draw: {@link #MARGIN} times that, never less than {@code floorWatts}; saturates.
   */
  static long aboveLimit(long publishedWatts, long floorWatts) {
    long drawn =
        publishedWatts > Long.MAX_VALUE / MARGIN ? Long.MAX_VALUE : publishedWatts * MARGIN;
    return Math.max(floorWatts, drawn);
  }

  /** Refuses a bound that admits nothing or everything. */
  PowerBound {
    if (watts <= 0) {
      throw new IllegalArgumentException("watts must be positive: " + watts);
    }
    if (slackNanos < 0) {
      throw new IllegalArgumentException("slackNanos must be non-negative: " + slackNanos);
    }
  }

  /**
   * The most µJ the domain can draw in {@code nanos} plus the slack; saturates, never overflows.
   */
  long mostDrawnUj(long nanos) {
    long span = Math.max(0, nanos) + slackNanos;
    // P W is P µJ per µs, so P * ns / 1000 µJ.
    return span > Long.MAX_VALUE / watts ? Long.MAX_VALUE : watts * span / 1_000;
  }
}
