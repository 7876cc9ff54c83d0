package org.meshjava.journal.postgres;

import org.junit.jupiter.api.Test;

/**
 * A steward role a careful DBA granted the journal's tables column by column (SPEC.md 60.7): {@code
 * GRANT SELECT, INSERT, UPDATE (journal, epoch, cluster_id, database_oid) ON mesh_journal_owner}
 * and the like, nothing on the tables as a whole. Every statement the journal runs names its
 * columns, so such a role may open, write and save snapshots; the privilege check at opening and at
 * each save asked only for the table-wide privilege and refused it, naming a GRANT the role did not
 * need.
 */
class PostgresColumnGrantsTest {
  @Test
  void aRoleGrantedEveryColumn_andNoTableWidePrivilege_opensWritesAndSavesSnapshots()
      throws Exception {
    StewardRoleJournal r = StewardRoleJournal.of(1, "Col Steward");
    String role = "\"Col Steward\"";
    r.sql(
        "REVOKE ALL ON mesh_journal_owner, mesh_journal_record, mesh_journal_snapshot FROM " + role,
        "GRANT SELECT (journal, epoch, cluster_id, database_oid),"
            + " INSERT (journal, epoch, cluster_id, database_oid),"
            + " UPDATE (journal, epoch, cluster_id, database_oid) ON mesh_journal_owner TO "
            + role,
        "GRANT SELECT (journal, seq, line), INSERT (journal, seq, line) ON mesh_journal_record TO "
            + role,
        "GRANT SELECT (journal, count, snapshot), INSERT (journal, count, snapshot),"
            + " UPDATE (journal, count, snapshot) ON mesh_journal_snapshot TO "
            + role,
        "GRANT DELETE ON mesh_journal_snapshot TO " + role);

    r.opensAppendsAndSaves();
  }

  /**
   * A role granted exactly the columns the journal uses (SPEC.md 60.7): {@code UPDATE} on the owner
   * table's epoch and home columns alone, on the snapshot itself alone, and nothing on a column a
   * DBA added for their own use. Every statement of the journal runs so; the check refused it,
   * asking for every privilege on every column, and named a GRANT of more than the journal needs.
   */
  @Test
  void aRoleGrantedOnlyTheColumnsTheJournalUses_opensWritesAndSavesSnapshots() throws Exception {
    StewardRoleJournal r = StewardRoleJournal.of(1, "Min Steward");
    r.sql(
        "ALTER TABLE mesh_journal_owner ADD COLUMN noted text DEFAULT 'by the DBA'",
        "ALTER TABLE mesh_journal_snapshot ADD COLUMN noted text DEFAULT 'by the DBA'");
    r.grantOnlyTheColumnsTheJournalUses();

    r.opensAppendsAndSaves();
  }
}
