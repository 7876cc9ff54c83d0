package org.meshjava.journal.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Statement;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * An opening whose session's path puts a hostile schema ahead of {@code pg_catalog} (SPEC.md 60.7,
 * "Schema"): a pooling proxy's other server connection, or a trigger's {@code SET}, can leave one.
 * The schema defines operators for exactly the types the opening's statements compare ({@code =} on
 * text, name and oid, {@code >=} and {@code <} on bigint, {@code +} on bigint and integer), each
 * answering false (or nothing). The opening's statements name {@code pg_catalog}'s operators, so
 * the journal opens with every record, its epoch raised by one and its home recorded as this
 * database's. Before, its read of the records took the hostile {@code =} and found none.
 */
class PostgresHostilePathOpeningTest {
  @BeforeAll
  static void startServer() {
    PostgresHostileDbaTest.startServer();
  }

  @Test
  void operatorsOfASchemaAheadOfPgCatalog_changeNothingAnOpeningReadsOrRaises() throws Exception {
    PostgresHostileDbaTest.Opened o = PostgresHostileDbaTest.Opened.open();
    o.journal().close();
    o.sql(
        "CREATE SCHEMA hostile",
        "CREATE FUNCTION hostile.never(text, text) RETURNS boolean LANGUAGE sql AS 'SELECT false'",
        "CREATE OPERATOR hostile.= (LEFTARG = text, RIGHTARG = text, FUNCTION = hostile.never)",
        "CREATE FUNCTION hostile.never(name, name) RETURNS boolean LANGUAGE sql AS 'SELECT false'",
        "CREATE OPERATOR hostile.= (LEFTARG = name, RIGHTARG = name, FUNCTION = hostile.never)",
        "CREATE FUNCTION hostile.never(oid, oid) RETURNS boolean LANGUAGE sql AS 'SELECT false'",
        "CREATE OPERATOR hostile.= (LEFTARG = oid, RIGHTARG = oid, FUNCTION = hostile.never)",
        "CREATE FUNCTION hostile.never(bigint, bigint) RETURNS boolean LANGUAGE sql"
            + " AS 'SELECT false'",
        "CREATE OPERATOR hostile.>= (LEFTARG = bigint, RIGHTARG = bigint,"
            + " FUNCTION = hostile.never)",
        "CREATE OPERATOR hostile.< (LEFTARG = bigint, RIGHTARG = bigint, FUNCTION = hostile.never)",
        "CREATE FUNCTION hostile.nothing(bigint, integer) RETURNS bigint LANGUAGE sql"
            + " AS 'SELECT NULL::bigint'",
        "CREATE OPERATOR hostile.+ (LEFTARG = bigint, RIGHTARG = integer,"
            + " FUNCTION = hostile.nothing)");
    PostgresLocation location =
        PostgresLocation.parse(PostgresHostileDbaTest.server.url(o.database()));
    try (PostgresJournal j =
        PostgresJournal.open(
            location,
            o.name(),
            () -> {},
            c -> {
              try (Statement s = c.createStatement()) {
                s.execute("SET search_path = hostile, pg_catalog, public, pg_temp");
              }
              return c;
            })) {
      assertThat(j.position().count()).as("every record read").isEqualTo(2);
      assertThat(j.epoch()).isEqualTo(2);
      j.append(PostgresJournalTest.authorised(1));
    }
    try (PostgresJournal j = PostgresJournal.open(location, o.name())) {
      assertThat(j.position().count()).isEqualTo(3);
      assertThat(j.epoch()).as("recorded as this database's, so not taken for a copy").isEqualTo(3);
    }
  }
}
