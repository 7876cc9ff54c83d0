package org.meshjava.energy;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.meshjava.core.EnergyDomain;

/**
 * One domain read from several distinct powercap zones: the dies of a multi-die package ({@code
 * package-N-die-D}), or their DRAM. The total is the sum of each zone's own wrap-corrected total.
 * Zones that mirror one counter are dropped before this is built ({@link RaplDiscovery}). Not
 * thread-safe, like every channel.
 */
final class RaplDieSum extends NamedChannel {
  private final List<RaplChannel> dies;

  /** Each zone's total at its last read. */
  private final long[] lastTotals;

  private final JointMark mark = new JointMark();
  private boolean read;

  RaplDieSum(String name, EnergyDomain domain, List<RaplChannel> dies) {
    super(name, domain);
    this.dies = List.copyOf(dies);
    if (this.dies.size() < 2) {
      throw new IllegalArgumentException("a die sum needs two or more zones: " + dies);
    }
    this.lastTotals = new long[this.dies.size()];
  }

  /** Its zones' files: a meter that sums the same dies reads the same counter. */
  @Override
  public Object hardware() {
    Set<Object> zones = new HashSet<>();
    for (RaplChannel d : dies) {
      zones.add(d.hardware());
    }
    return Set.copyOf(zones);
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

  /**
   * The dies draw together, so their sum may grow by every die's most at once; dies that publish no
   * figure above the default keep the package's one bound for the sum, the bound of a package whose
   * zones publish none.
   */
  @Override
  public PowerBound powerBound() {
    long watts = 0;
    boolean published = false;
    for (RaplChannel d : dies) {
      published |= d.maxWatts() != RaplChannel.ASSUMED_MAX_WATTS;
      watts = watts > Long.MAX_VALUE - d.maxWatts() ? Long.MAX_VALUE : watts + d.maxWatts();
    }
    return published ? new PowerBound(watts, RaplChannel.REFRESH_SLACK_NANOS) : PowerBound.PACKAGE;
  }

  @Override
  public void probing(boolean running) {
    for (RaplChannel d : dies) {
      d.probing(running);
    }
  }

  @Override
  public void refused() {
    for (RaplChannel d : dies) {
      d.refused();
    }
  }

  @Override
  public long readTotalUj() throws CounterException {
    long[] totals = new long[dies.size()];
    long total = 0;
    for (int i = 0; i < totals.length; i++) {
      totals[i] = dies.get(i).readTotalUj();
      total = Math.addExact(total, totals[i]);
    }
    for (int i = 0; i < totals.length; i++) {
      mark.saw(dies.get(i).name(), read && totals[i] != lastTotals[i]);
      lastTotals[i] = totals[i];
    }
    read = true;
    mark.endRead();
    return total;
  }

  /**
   * Moves only once every zone has moved since it last did: the sum advances when any die does, and
   * a die whose zone is frozen must not be covered by a figure over the package.
   */
  @Override
  public long livenessMark(long total) {
    return mark.mark();
  }
}
