package org.meshjava.energy;

import java.util.Optional;
import org.meshjava.core.EnergyDomain;

/**
 * One counter reading one domain, presented as a monotonic microjoule total from the first read
 * (wraparound and unit conversion already handled). Not thread-safe: the meter serialises reads of
 * a channel under its ledger's lock.
 */
interface EnergyChannel {

  /** A stable name for logs and {@link CounterStatus#counter()}. */
  String name();

  /** The domain this channel reads. */
  EnergyDomain domain();

  /**
   * What this counter is on the machine, compared by {@code equals}: channels of two meters of the
   * process whose identities are equal read one hardware counter, so a window of one is a window on
   * the other's counter too (a zone's {@code energy_uj} as the file system resolves it, a GPU
   * board's UUID). Never the domain's name: two meters may map one name onto different hardware (a
   * test's fake tree, another {@code CUDA_VISIBLE_DEVICES}), and one counter onto different names.
   * By default this channel alone, which no other channel reads.
   */
  default Object hardware() {
    return this;
  }

  /**
   * Reads the counter and returns the µJ accumulated since the first read (0 on the first).
   *
   * @throws CounterException if the counter cannot be read or went implausibly backwards
   */
  long readTotalUj() throws CounterException;

  /**
   * The value this channel's liveness is judged on after a read that returned {@code total}: the
   * probe's rule and the stall rule look only at whether it changed. For a channel over one counter
   * it is the total. A channel that sums several counters returns a mark that moves only once every
   * one of them has moved since it last did, so one frozen counter cannot hide behind another that
   * advances: a figure over the domain would claim the part the frozen one reads (§3.3).
   */
  default long livenessMark(long total) {
    return total;
  }

  /**
   * The longest the counter may go unread before a wrap could be missed: a raw counter that wraps
   * at a range must be read at least once per wrap (RAPL), one that cannot wrap in practice (NVML's
   * 64-bit millijoules, IOReport's deltas) never needs it.
   */
  default long maxReadGapNanos() {
    return Long.MAX_VALUE;
  }

  /**
   * Whether the counter refreshes only every tens of milliseconds (NVML), so that it is probed with
   * the slow liveness policy rather than the standard one.
   */
  default boolean slowUpdating() {
    return false;
  }

  /**
   * The most energy this counter's domain can draw between two reads: a larger increment of the
   * total, or any decrease, is a fault and never energy. A GPU board by default, else a CPU package
   * (which also covers DRAM and Apple's SoC rails).
   */
  default PowerBound powerBound() {
    return domain().kind() == EnergyDomain.Kind.GPU ? PowerBound.GPU_BOARD : PowerBound.PACKAGE;
  }

  /**
   * What an operator should know about this counter beyond its liveness, such as the power bound a
   * GPU board is held to and why; shown in its {@link CounterStatus#detail()}.
   */
  default Optional<String> statusNote() {
    return Optional.empty();
  }

  /**
   * Called on the probe's thread as each probe of this counter begins, under the meter's lock on
   * it: a channel whose set-up left a figure unsettled by a passing failure may ask again here, off
   * every serve's path.
   */
  default void recheckAtProbe() {}

  /**
   * Called under the meter's lock on this counter as each probe of it begins ({@code true}) and
   * ends: the probe's reads, a millisecond apart while it burns, measure its own load, which a
   * channel that follows its domain's draw (a RAPL zone's read interval) leaves out.
   */
  default void probing(boolean running) {}

  /**
   * Called under the meter's lock on this counter when the total its last read returned was refused
   * as no energy (it ran backwards, or rose further than the domain can draw): a channel that
   * learnt from that read (a RAPL zone the draw it reads its interval for) forgets what it learnt,
   * so a counter misreading cannot move the figures it is judged by.
   */
  default void refused() {}

  /** Releases native resources; reads after this fail. */
  default void release() {}
}
