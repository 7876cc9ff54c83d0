/**
 * The steward's durable decision journal (§2.2): records, the file journal, group commit, locking.
 *
 * <p>{@code org.meshjava.journal} is the API: the {@code Journal} SPI and its records, the file and
 * in-memory journals, snapshots and their stores. {@code org.meshjava.journal.internal} is the
 * plumbing the steward, the command line, the conformance pack and the PostgreSQL journal share:
 * the record encoding and chain, group commit, reading a journal file or its archived segments, and
 * replaying records into a gate and a transparency log. ("module" warnings are suppressed because
 * the modules it is exported to are built after this one.)
 */
@SuppressWarnings("module")
module org.meshjava.journal {
  requires static transitive org.jspecify;
  requires transitive org.meshjava.core;
  requires transitive org.meshjava.jcp;
  requires transitive org.meshjava.receipt;
  requires com.fasterxml.jackson.databind;
  requires org.slf4j;

  exports org.meshjava.journal;
  exports org.meshjava.journal.internal to
      org.meshjava.journal.postgres,
      org.meshjava.steward,
      org.meshjava.conformance,
      org.meshjava.cli;
}
