package org.meshjava.journal.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * A DBA's trigger on the snapshot table (SPEC.md 60.7), added while stewards run: one that renames
 * the row on its way in stored the save under another journal's name, and the save was
 * acknowledged, its steward left with no snapshot of its own and the other steward's next start
 * finding a snapshot that is not its own. A save now refuses such a trigger, or a rule, before
 * writing, naming it and the statement that takes it off.
 */
class PostgresSnapshotTriggerTest {
  @Test
  void aTriggerRenamingTheSavedRow_isRefusedAtSave_namingTheStatementThatTakesItOff()
      throws Exception {
    RefusedSave refused =
        RefusedSave.under(
            "Re Name",
            "CREATE FUNCTION rename() RETURNS trigger LANGUAGE plpgsql AS"
                + " $$BEGIN NEW.journal := '"
                + RefusedSave.OTHER
                + "'; RETURN NEW; END$$",
            "CREATE TRIGGER \"Re Name\" BEFORE INSERT ON mesh_journal_snapshot"
                + " FOR EACH ROW EXECUTE FUNCTION rename()");

    String message = refused.message();
    refused
        .opened()
        .sql(
            message.substring(
                message.indexOf("Drop it or disable it (") + "Drop it or disable it (".length(),
                message.indexOf("), then save again")));
    refused.store().save(PostgresSnapshotStoreTest.at(2));
    assertThat(refused.store().latestHeader().orElseThrow().position().count()).isEqualTo(2);
  }
}
