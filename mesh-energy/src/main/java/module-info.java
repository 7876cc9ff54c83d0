/** Energy meters: the meter SPI, the honest estimator, and (later) hardware counters via FFM. */
module org.meshjava.energy {
  requires static transitive org.jspecify;
  requires transitive org.meshjava.core;
  requires org.slf4j;

  exports org.meshjava.energy;
}
