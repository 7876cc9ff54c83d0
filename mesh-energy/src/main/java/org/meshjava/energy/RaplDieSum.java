package org.meshjava.energy;

import java.util.List;
import org.meshjava.core.EnergyDomain;

/**
 * One domain read from several distinct powercap zones: the dies of a multi-die package ({@code
 * package-N-die-D}), or their DRAM. The total is the sum of each zone's own wrap-corrected total.
 * Zones that mirror one counter are dropped before this is built ({@link RaplDiscovery}). Not
 * thread-safe, like every channel.
 */
final class RaplDieSum extends NamedChannel {
  private final List<RaplChannel> dies;

  RaplDieSum(String name, EnergyDomain domain, List<RaplChannel> dies) {
    super(name, domain);
    this.dies = List.copyOf(dies);
    if (this.dies.size() < 2) {
      throw new IllegalArgumentException("a die sum needs two or more zones: " + dies);
    }
  }

  /** The tightest of the zones' bounds: each must be read before it can wrap twice. */
  @Override
  public long maxReadGapNanos() {
    long gap = Long.MAX_VALUE;
    for (RaplChannel d : dies) {
      gap = Math.min(gap, d.maxReadGapNanos());
    }
    return gap;
  }

  @Override
  public long readTotalUj() throws CounterException {
    long total = 0;
    for (RaplChannel d : dies) {
      total = Math.addExact(total, d.readTotalUj());
    }
    return total;
  }
}
