package org.meshjava.journal.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import org.meshjava.journal.SnapshotException;
import org.meshjava.testpg.PostgresTestServer;

/**
 * The set-up of the tests of a DBA's trigger on the snapshot table (SPEC.md 60.7): a closed journal
 * in a database of its own, the DBA's statements, and a save of its snapshot refused ({@code IO})
 * before anything is written, naming the trigger and the statement that disables it, with nothing
 * stored under the other journal's name ({@code did:key:zOther}) that the triggers write.
 *
 * @param opened the journal's database and name
 * @param store the journal's snapshots
 * @param message the refusal's words
 */
record RefusedSave(
    PostgresHostileDbaTest.Opened opened, PostgresSnapshotStore store, String message) {
  /** The other journal's name the tests' triggers store a save under. */
  static final String OTHER = "did:key:zOther";

  /** Runs {@code statements}, which make a trigger named {@code trigger}, then refuses a save. */
  static RefusedSave under(String trigger, String... statements) throws Exception {
    PostgresHostileDbaTest.startServer();
    PostgresHostileDbaTest.Opened o = PostgresHostileDbaTest.Opened.open();
    o.journal().close();
    o.sql(statements);
    PostgresSnapshotStore store = PostgresSnapshotStore.of(location(o), o.name());

    Throwable t = catchThrowable(() -> store.save(PostgresSnapshotStoreTest.at(2)));

    assertThat(PostgresSnapshotStore.of(location(o), OTHER).latest())
        .as("the save stored under another journal's name")
        .isEmpty();
    assertThat(t).isInstanceOf(SnapshotException.class);
    assertThat(((SnapshotException) t).reason()).isEqualTo(SnapshotException.Reason.IO);
    assertThat(t.getMessage())
        .contains("table mesh_journal_snapshot carries trigger " + trigger)
        .contains("ALTER TABLE public.mesh_journal_snapshot DISABLE TRIGGER \"" + trigger + "\"");
    return new RefusedSave(o, store, t.getMessage());
  }

  private static PostgresLocation location(PostgresHostileDbaTest.Opened o) {
    return PostgresLocation.parse(PostgresTestServer.shared().url(o.database()));
  }
}
