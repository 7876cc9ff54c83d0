package org.meshjava.journal.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Row-level security turned on for the owner table under a running steward (SPEC.md 60.7,
 * "Faults"): the journal's owner row, hidden from its role, read as deleted, and the refusal told
 * the operator someone had deleted it and that a restart would begin again at epoch 1, neither of
 * which was so. It now names the row security, and says how to lift it.
 */
class PostgresOwnerRowSecurityTest {
  @BeforeAll
  static void startServer() {
    PostgresHostileDbaTest.startServer();
  }

  @Test
  void rowSecurityOnTheOwnerTable_failsTheJournal_namingIt_notADeletedRow() throws Exception {
    String role = PostgresHostileDbaTest.role();
    PostgresHostileDbaTest.Opened o = PostgresHostileDbaTest.Opened.open(role);
    try (PostgresJournal j = o.journal()) {
      // The role owns the table, so the DBA forces it on the owner too; no policy shows any row.
      o.sql(
          "ALTER TABLE mesh_journal_owner ENABLE ROW LEVEL SECURITY",
          "ALTER TABLE mesh_journal_owner FORCE ROW LEVEL SECURITY");
      assertThat(o.heartbeatFailure())
          .contains("row-level security applies to role " + role + " on mesh_journal_owner")
          .doesNotContain("deleted by hand");
    }
    assertThat(o.rows()).isEqualTo(2);
  }
}
