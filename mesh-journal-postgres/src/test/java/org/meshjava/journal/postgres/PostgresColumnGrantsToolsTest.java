package org.meshjava.journal.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A role granted exactly the columns the privilege check asks of a steward (SPEC.md 60.7) does,
 * beyond opening, writing and saving ({@link PostgresColumnGrantsTest}), everything else the
 * journal and its tools ({@code mesh journal} on PostgreSQL) do: read the records, list the
 * journals, read the latest snapshot whole, import a journal, and adopt one.
 */
class PostgresColumnGrantsToolsTest {
  @Test
  void aRoleGrantedOnlyTheColumnsTheJournalUses_readsListsImportsAndAdopts() throws Exception {
    StewardRoleJournal r = StewardRoleJournal.of(1, "Tool Steward");
    r.grantOnlyTheColumnsTheJournalUses();
    PostgresLocation at = r.asRole();

    r.opensAppendsAndSaves();
    List<byte[]> lines = PostgresJournal.readLines(at, r.name());
    assertThat(lines).hasSize(3);
    assertThat(PostgresJournal.names(at)).containsExactly(r.name());
    assertThat(PostgresSnapshotStore.of(at, r.name()).latest()).isPresent();

    String copy = PostgresJournalTest.newName();
    assertThat(PostgresJournal.importLines(at, copy, lines)).isEqualTo(3);
    try (PostgresJournal adopted = PostgresJournal.adopt(at, copy)) {
      assertThat(adopted.position().count()).isEqualTo(3);
      assertThat(adopted.epoch()).isEqualTo(2);
    }
  }
}
