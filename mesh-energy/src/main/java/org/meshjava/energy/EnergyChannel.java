package org.meshjava.energy;

import org.meshjava.core.EnergyDomain;

/**
 * One counter reading one domain, presented as a monotonic microjoule total from the first
 * read (wraparound and unit conversion already handled). Not thread-safe: the meter serialises
 * reads of a channel under its ledger's lock.
 */
interface EnergyChannel {

  /** A stable name for logs and {@link CounterStatus#counter()}. */
  String name();

  /** The domain this channel reads. */
  EnergyDomain domain();

  /**
   * Reads the counter and returns the µJ accumulated since the first read (0 on the first).
   *
   * @throws CounterException if the counter cannot be read or went implausibly backwards
   */
  long readTotalUj() throws CounterException;

  /** Releases native resources; reads after this fail. */
  default void release() {}
}
