package org.meshjava.journal.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.meshjava.journal.JournalException;

/**
 * A trigger that rewrites the rows the journal inserts (SPEC.md 60.7, "Faults"): the insert stored
 * as many rows as it was given, of the right types, so the batch was acknowledged, its receipts
 * handed out, and the records it stored were not those records; the next start refused the journal
 * as corrupt. The batch is now refused before its COMMIT.
 */
class PostgresRewritingTriggerTest {
  @Test
  void aTriggerRewritingALine_failsTheBatchBeforeItsCommit_namingTheTrigger() throws Exception {
    JournalException e =
        RefusedBatch.after(
            refused -> "DROP TRIGGER padder ON mesh_journal_record",
            "CREATE FUNCTION pad() RETURNS trigger LANGUAGE plpgsql AS"
                + " $$BEGIN NEW.line := NEW.line || '\\x20'::bytea; RETURN NEW; END$$",
            "CREATE TRIGGER padder BEFORE INSERT ON mesh_journal_record"
                + " FOR EACH ROW EXECUTE FUNCTION pad()");
    assertThat(e.getMessage())
        .contains("not the records it was given")
        .contains("it carries trigger padder");
  }
}
