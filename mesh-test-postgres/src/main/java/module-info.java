/**
 * Test support (not published): a throwaway PostgreSQL server from binaries that come as a Maven
 * artifact, for the PostgreSQL journal's tests and benchmark.
 */
module org.meshjava.testpg {
  requires static org.jspecify;
  requires transitive java.sql;
  requires org.postgresql.jdbc;
  requires org.apache.commons.compress;
  requires org.tukaani.xz;

  exports org.meshjava.testpg;
}
