/**
 * The optional Micrometer binding of a steward: {@link org.meshjava.metrics.StewardMetrics} (meters
 * for serves, refusals, energy, grant spend, the journal, the meter and the chain) and {@link
 * org.meshjava.metrics.StewardObservations} (one observation per serve, with its phases), or {@link
 * org.meshjava.metrics.ServeTimers} (those observations' timers alone, for a process that traces
 * nothing). The steward's own modules do not depend on Micrometer; only an application that wants
 * these does.
 */
module org.meshjava.metrics {
  requires static transitive org.jspecify;
  requires transitive org.meshjava.steward;
  requires transitive micrometer.core;
  requires transitive micrometer.observation;
  requires transitive micrometer.commons;

  exports org.meshjava.metrics;
}
