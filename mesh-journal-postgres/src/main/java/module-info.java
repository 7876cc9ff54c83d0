/**
 * The steward's decision journal (§2.2) kept in PostgreSQL: the same records as the file journal,
 * one writer enforced by the database (an advisory lock and a fencing epoch), group commit.
 */
module org.meshjava.journal.postgres {
  requires static transitive org.jspecify;
  requires transitive org.meshjava.journal;
  requires transitive java.sql;
  requires org.postgresql.jdbc;
  requires org.slf4j;

  exports org.meshjava.journal.postgres;
}
