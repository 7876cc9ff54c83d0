package org.meshjava.journal.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.function.Function;
import org.meshjava.journal.JournalException;

/**
 * The set-up of the tests of what a DBA puts on the records table while a steward runs (SPEC.md
 * 60.7, "Faults"): a journal of two records in a database of its own, the DBA's statements, the
 * next append refused {@code FAILED}, then what takes the DBA's work off again, after which the
 * journal's own reader finds the two records and nothing of the refused batch.
 */
final class RefusedBatch {
  private RefusedBatch() {}

  /**
   * Runs {@code statements} under a running journal and answers the refusal of its next append,
   * after running the statement {@code undo} makes of it.
   */
  static JournalException after(Function<JournalException, String> undo, String... statements)
      throws Exception {
    PostgresHostileDbaTest.startServer();
    PostgresHostileDbaTest.Opened o = PostgresHostileDbaTest.Opened.open();
    JournalException e;
    try (PostgresJournal j = o.journal()) {
      e = o.failedAfter(statements);
    }
    o.sql(undo.apply(e));
    assertThat(o.rows()).as("nothing of the refused batch").isEqualTo(2);
    return e;
  }
}
