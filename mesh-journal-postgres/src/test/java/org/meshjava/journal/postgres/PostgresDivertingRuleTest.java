package org.meshjava.journal.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.meshjava.journal.JournalException;

/**
 * A DBA's rule on the records table added while a steward runs (SPEC.md 60.7): an unconditional
 * {@code DO INSTEAD} rule with a {@code RETURNING} list is the one rule the server lets the batch's
 * insert run under, and its {@code RETURNING} answers the rows the rule wrote elsewhere, column for
 * column the rows the batch gave. The batch was acknowledged, and its receipts handed out, while
 * {@code mesh_journal_record} held none of it: the next start, the rule dropped, read a journal
 * without those records, every grant they spent unspent again.
 */
class PostgresDivertingRuleTest {
  @BeforeAll
  static void startServer() {
    PostgresHostileDbaTest.startServer();
  }

  @Test
  void anInsteadRuleDivertingTheRecords_failsTheBatch_beforeItsCommit() throws Exception {
    PostgresHostileDbaTest.Opened o = PostgresHostileDbaTest.Opened.open();
    try (PostgresJournal j = o.journal()) {
      JournalException e =
          o.failedAfter(
              "CREATE TABLE diverted (journal text, seq bigint, line bytea)",
              "CREATE RULE \"Di Vert\" AS ON INSERT TO mesh_journal_record DO INSTEAD"
                  + " INSERT INTO diverted VALUES (NEW.journal, NEW.seq, NEW.line)"
                  + " RETURNING diverted.*");
      assertThat(e.getMessage()).contains("rule Di Vert");
    }
    o.sql("DROP RULE \"Di Vert\" ON mesh_journal_record");
    assertThat(o.rows()).isEqualTo(2);
  }
}
