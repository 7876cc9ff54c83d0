package org.meshjava.journal.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.meshjava.journal.SnapshotException;
import org.meshjava.testpg.PostgresTestServer;

/**
 * A DBA's trigger on the snapshot table run on a delete (SPEC.md 60.7): every save deletes the
 * journal's older rows, so a statement-level {@code AFTER DELETE} trigger runs in every save's
 * transaction, after the new row is written, and may change that row. One renaming it stored the
 * save under another journal's name and the save was acknowledged; the check at each save named
 * triggers on insert and update alone.
 */
class PostgresSnapshotDeleteTriggerTest {
  @BeforeAll
  static void startServer() {
    PostgresHostileDbaTest.startServer();
  }

  @Test
  void aDeleteTriggerRenamingTheSavedRow_isRefusedAtSave_beforeAnythingIsWritten()
      throws Exception {
    PostgresHostileDbaTest.Opened o = PostgresHostileDbaTest.Opened.open();
    o.journal().close();
    PostgresLocation at = PostgresLocation.parse(PostgresTestServer.shared().url(o.database()));
    o.sql(
        "CREATE FUNCTION rename_all() RETURNS trigger LANGUAGE plpgsql AS"
            + " $$BEGIN UPDATE mesh_journal_snapshot SET journal = 'did:key:zOther'; RETURN NULL;"
            + " END$$",
        "CREATE TRIGGER \"Pruned\" AFTER DELETE ON mesh_journal_snapshot"
            + " FOR EACH STATEMENT EXECUTE FUNCTION rename_all()");
    PostgresSnapshotStore store = PostgresSnapshotStore.of(at, o.name());

    Throwable t = catchThrowable(() -> store.save(PostgresSnapshotStoreTest.at(2)));

    assertThat(PostgresSnapshotStore.of(at, "did:key:zOther").latest())
        .as("the save stored under another journal's name")
        .isEmpty();
    assertThat(t).isInstanceOf(SnapshotException.class);
    assertThat(((SnapshotException) t).reason()).isEqualTo(SnapshotException.Reason.IO);
    assertThat(t.getMessage())
        .contains("table mesh_journal_snapshot carries trigger Pruned")
        .contains("ALTER TABLE public.mesh_journal_snapshot DISABLE TRIGGER \"Pruned\"");
  }
}
