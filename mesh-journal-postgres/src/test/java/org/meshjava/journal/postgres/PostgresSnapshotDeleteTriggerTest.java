package org.meshjava.journal.postgres;

import org.junit.jupiter.api.Test;

/**
 * A DBA's trigger on the snapshot table run on a delete (SPEC.md 60.7): every save deletes the
 * journal's older rows, so a statement-level {@code AFTER DELETE} trigger runs in every save's
 * transaction, after the new row is written, and may change that row. One renaming it stored the
 * save under another journal's name and the save was acknowledged; the check at each save named
 * triggers on insert and update alone.
 */
class PostgresSnapshotDeleteTriggerTest {
  @Test
  void aDeleteTriggerRenamingTheSavedRow_isRefusedAtSave_beforeAnythingIsWritten()
      throws Exception {
    RefusedSave.under(
        "Pruned",
        "CREATE FUNCTION rename_all() RETURNS trigger LANGUAGE plpgsql AS"
            + " $$BEGIN UPDATE mesh_journal_snapshot SET journal = '"
            + RefusedSave.OTHER
            + "'; RETURN NULL; END$$",
        "CREATE TRIGGER \"Pruned\" AFTER DELETE ON mesh_journal_snapshot"
            + " FOR EACH STATEMENT EXECUTE FUNCTION rename_all()");
  }
}
