/** Cheapest-sufficient routing with an auditable record of every candidate (§4). */
module org.meshjava.router {
  requires transitive org.meshjava.core;

  exports org.meshjava.router;
}
