package org.meshjava.journal.postgres;

import static org.assertj.core.api.Assertions.assertThat;

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
  /**
   * The refusal names the statement that drops the rule with the rule's name quoted as the server
   * quotes it: it said {@code DROP RULE name ON ...}, a placeholder, which an operator copying it
   * ran against no rule (or, for a rule named {@code name}, another one).
   */
  @Test
  void anInsteadRuleDivertingTheRecords_failsTheBatch_beforeItsCommit_namingTheDropThatWorks()
      throws Exception {
    String drop = "DROP RULE \"Di \"\"Vert\" ON public.mesh_journal_record";
    JournalException e =
        RefusedBatch.after(
            // The statement the refusal names, as an operator copies it.
            refused -> {
              String m = refused.getMessage();
              int at = m.indexOf("DROP RULE ");
              return at < 0 ? "SELECT 'no DROP RULE named'" : m.substring(at, m.indexOf(')', at));
            },
            "CREATE TABLE diverted (journal text, seq bigint, line bytea)",
            "CREATE RULE \"Di \"\"Vert\" AS ON INSERT TO mesh_journal_record DO INSTEAD"
                + " INSERT INTO diverted VALUES (NEW.journal, NEW.seq, NEW.line)"
                + " RETURNING diverted.*");
    assertThat(e.getMessage()).contains("rule Di \"Vert").contains("drop it (" + drop + ")");
  }
}
