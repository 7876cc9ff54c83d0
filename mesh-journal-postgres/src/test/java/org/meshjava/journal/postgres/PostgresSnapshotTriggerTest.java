package org.meshjava.journal.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.meshjava.journal.SnapshotException;
import org.meshjava.testpg.PostgresTestServer;

/**
 * A DBA's trigger on the snapshot table (SPEC.md 60.7), added while stewards run: one that renames
 * the row on its way in stored the save under another journal's name, and the save was
 * acknowledged, its steward left with no snapshot of its own and the other steward's next start
 * finding a snapshot that is not its own. A save now refuses such a trigger, or a rule, before
 * writing, naming it and the statement that takes it off.
 */
class PostgresSnapshotTriggerTest {
  @BeforeAll
  static void startServer() {
    PostgresHostileDbaTest.startServer();
  }

  @Test
  void aTriggerRenamingTheSavedRow_isRefusedAtSave_namingTheStatementThatTakesItOff()
      throws Exception {
    PostgresHostileDbaTest.Opened o = PostgresHostileDbaTest.Opened.open();
    o.journal().close();
    PostgresLocation at = PostgresLocation.parse(PostgresTestServer.shared().url(o.database()));
    o.sql(
        "CREATE FUNCTION rename() RETURNS trigger LANGUAGE plpgsql AS"
            + " $$BEGIN NEW.journal := 'did:key:zOther'; RETURN NEW; END$$",
        "CREATE TRIGGER \"Re Name\" BEFORE INSERT ON mesh_journal_snapshot"
            + " FOR EACH ROW EXECUTE FUNCTION rename()");
    PostgresSnapshotStore store = PostgresSnapshotStore.of(at, o.name());

    Throwable t = catchThrowable(() -> store.save(PostgresSnapshotStoreTest.at(2)));

    assertThat(t).isInstanceOf(SnapshotException.class);
    assertThat(((SnapshotException) t).reason()).isEqualTo(SnapshotException.Reason.IO);
    assertThat(t.getMessage())
        .contains("table mesh_journal_snapshot carries trigger Re Name")
        .contains("ALTER TABLE public.mesh_journal_snapshot DISABLE TRIGGER \"Re Name\"");
    assertThat(PostgresSnapshotStore.of(at, "did:key:zOther").latest()).isEmpty();

    String message = t.getMessage();
    o.sql(
        message.substring(
            message.indexOf("Drop it or disable it (") + "Drop it or disable it (".length(),
            message.indexOf("), then save again")));
    store.save(PostgresSnapshotStoreTest.at(2));
    assertThat(store.latestHeader().orElseThrow().position().count()).isEqualTo(2);
  }
}
