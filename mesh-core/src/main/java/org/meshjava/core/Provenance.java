package org.meshjava.core;

/** Where an energy figure came from (§3.3). The receipt carries the constant's name verbatim. */
public enum Provenance {
  /** A hardware reading: a shunt, or a vendor counter proven live for every domain claimed. */
  HwShunt,
  /**
   * Derived from a model or apportioned from shared counters; not a reading of this serve alone.
   */
  ModelBased,
  /** Estimated from the cost profile; no measurement implied. */
  Estimator;

  /**
   * Parses the wire name.
   *
   * @throws IllegalArgumentException for any other text
   */
  public static Provenance fromWire(String name) {
    for (Provenance p : values()) {
      if (p.name().equals(name)) {
        return p;
      }
    }
    throw new IllegalArgumentException("unknown energy provenance '" + name + "'");
  }
}
