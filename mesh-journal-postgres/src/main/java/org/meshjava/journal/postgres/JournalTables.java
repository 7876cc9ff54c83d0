package org.meshjava.journal.postgres;

import java.util.Objects;

/**
 * The journal's tables in one schema, named in full in every statement that reaches them (SPEC.md
 * section 60.7, "Schema"), so that no statement depends on the session's {@code search_path}. The
 * session's path is pinned to the schema as well ({@link PostgresLocation#session}), but a
 * transaction-pooling proxy (PgBouncer in transaction mode) runs each transaction on whichever
 * server connection is free, whose path may be another's, and a trigger's function may change the
 * path for the rest of a transaction ({@code SET LOCAL search_path}) or the session: under either a
 * table named without its schema reached another schema's table of the same name (or a temporary
 * one), and a journal opened afresh there. Immutable.
 *
 * @param schema the schema's name as the catalog holds it (any characters)
 */
record JournalTables(String schema) {
  JournalTables {
    Objects.requireNonNull(schema, "schema");
    if (schema.isEmpty()) {
      throw new IllegalArgumentException("a schema's name is not empty");
    }
  }

  /** The owner table, in full: one row per journal (its epoch and where it was written). */
  String owner() {
    return table("mesh_journal_owner");
  }

  /** The records table, in full: one row per record. */
  String record() {
    return table("mesh_journal_record");
  }

  /** The snapshot table, in full: one row per snapshot kept. */
  String snapshot() {
    return table("mesh_journal_snapshot");
  }

  /** Table {@code name} (one of the journal's, unquoted lower case) of the schema, in full. */
  String table(String name) {
    return quotedIdentifier(schema) + "." + name;
  }

  /**
   * An SQL expression for the oid of the table of the schema whose name is the SQL text expression
   * {@code name}, null where the schema has none or the role may not use the schema (as a path
   * leaves out a schema the role may not use, rather than failing the statement as a name in full
   * does) or the schema is the session's temporary one. Looked up in the catalog by the schema's
   * name, not through {@code to_regclass}, which reads an unqualified name through the path.
   */
  String oid(String name) {
    return "(SELECT r.oid FROM pg_catalog.pg_class r JOIN pg_catalog.pg_namespace n"
        + " ON n.oid OPERATOR(pg_catalog.=) r.relnamespace"
        + " WHERE n.nspname OPERATOR(pg_catalog.=) "
        + literal(schema)
        + "::pg_catalog.name AND r.relname OPERATOR(pg_catalog.=) ("
        + name
        + ")::pg_catalog.name"
        + " AND pg_catalog.has_schema_privilege(n.oid, 'USAGE')"
        + " AND n.oid OPERATOR(pg_catalog.<>) pg_catalog.pg_my_temp_schema())";
  }

  /** The schema's name as an SQL string literal. */
  String schemaLiteral() {
    return literal(schema);
  }

  /** {@code name} as a quoted SQL identifier: its own name whatever its characters or case. */
  static String quotedIdentifier(String name) {
    return '"' + name.replace("\"", "\"\"") + '"';
  }

  /**
   * {@code text} as an escape string literal ({@code E'…'}): read the same whatever the session's
   * {@code standard_conforming_strings}, which a role's setting may turn off.
   */
  static String literal(String text) {
    return "E'" + text.replace("\\", "\\\\").replace("'", "''") + "'";
  }
}
