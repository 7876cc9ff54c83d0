package org.meshjava.journal.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import org.junit.jupiter.api.Test;
import org.meshjava.journal.SnapshotException;

/**
 * A steward role a DBA granted less on {@code mesh_journal_snapshot} than a save uses (SPEC.md
 * 60.7, 60.8): without {@code DELETE} the insert of the new row passed and the drop of the older
 * ones failed, so every save failed with the server's "permission denied for table", naming neither
 * the privilege nor the grant. The save is now refused before it writes, naming both.
 */
class PostgresSnapshotPrivilegeTest {
  @Test
  void aRoleWithoutDelete_isToldWhichGrantItLacks_andTheGrantAsWrittenLetsItSave()
      throws Exception {
    // Granted SELECT, INSERT and UPDATE on the journal's tables; a role named to be quoted.
    StewardRoleJournal r = StewardRoleJournal.of(1, "Snap Steward");
    PostgresSnapshotStore store = PostgresSnapshotStore.of(r.asRole(), r.name());

    SnapshotException e =
        catchThrowableOfType(
            SnapshotException.class, () -> store.save(PostgresSnapshotStoreTest.at(3)));
    assertThat(e).isNotNull();
    assertThat(e.reason()).isEqualTo(SnapshotException.Reason.IO);
    assertThat(e.getMessage())
        .contains("role \"Snap Steward\" lacks DELETE on table mesh_journal_snapshot")
        .contains("GRANT DELETE ON public.mesh_journal_snapshot TO \"Snap Steward\"");

    String message = e.getMessage();
    r.sql(message.substring(message.indexOf("GRANT DELETE")));
    store.save(PostgresSnapshotStoreTest.at(3));
    store.save(PostgresSnapshotStoreTest.at(4));
    store.save(PostgresSnapshotStoreTest.at(5));
    assertThat(store.latestHeader()).isPresent();
    assertThat(store.latestHeader().orElseThrow().position().count()).isEqualTo(5);
  }
}
