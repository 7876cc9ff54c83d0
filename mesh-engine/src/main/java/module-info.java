/** The deterministic, weights-free reference engine used for conformance and demos. */
module org.meshjava.engine {
  requires transitive org.meshjava.core;

  exports org.meshjava.engine;
}
