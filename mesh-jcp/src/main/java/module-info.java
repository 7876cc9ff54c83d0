/**
 * JCP grants as mesh/1 uses them (§2, §2.1): identities, signed grants and chains, presentations,
 * and the {@link org.meshjava.jcp.Gate} that decides a serve before the work and debits it after.
 */
module org.meshjava.jcp {
  requires static transitive org.jspecify;
  requires transitive org.meshjava.core;

  exports org.meshjava.jcp;
}
