/** The conformance vectors of mesh/1: their generator and the runner that checks against them. */
module org.meshjava.conformance {
  requires static transitive org.jspecify;
  requires transitive org.meshjava.steward;
  requires org.meshjava.engine;
  requires org.meshjava.openai;
  requires transitive com.fasterxml.jackson.databind;

  exports org.meshjava.conformance;
  exports org.meshjava.conformance.pack;
}
