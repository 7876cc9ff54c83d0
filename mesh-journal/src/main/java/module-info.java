/**
 * The steward's durable decision journal (§2.2): records, the file journal, group commit, locking.
 */
@SuppressWarnings("module") // the module it exports to is built after this one
module org.meshjava.journal {
  requires static transitive org.jspecify;
  requires transitive org.meshjava.core;
  requires transitive org.meshjava.jcp;
  requires transitive org.meshjava.receipt;
  requires com.fasterxml.jackson.databind;
  requires org.slf4j;

  exports org.meshjava.journal;
  exports org.meshjava.journal.internal to
      org.meshjava.journal.postgres;
}
