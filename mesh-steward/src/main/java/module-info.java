/** The steward: routes, meters, seals and chains each serve (§2). The facade users call. */
module org.meshjava.steward {
  requires static transitive org.jspecify;
  requires transitive org.meshjava.core;
  requires transitive org.meshjava.receipt;
  requires transitive org.meshjava.router;
  requires transitive org.meshjava.energy;
  requires transitive org.meshjava.jcp;
  requires transitive org.meshjava.journal;
  requires org.slf4j;

  exports org.meshjava.steward;
  exports org.meshjava.steward.observe;
}
