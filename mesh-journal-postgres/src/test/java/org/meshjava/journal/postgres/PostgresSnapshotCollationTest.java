package org.meshjava.journal.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.util.Locale;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.meshjava.journal.SnapshotException;
import org.meshjava.testpg.PostgresTestServer;

/**
 * A DBA's nondeterministic collation on the snapshot table's journal column (SPEC.md 60.7,
 * "Schema"), put on while stewards run: their journals stay open, and each saves snapshots. Under a
 * case-insensitive one the save of a steward whose name differs from another's in case alone went
 * into the other's row at the same count (the conflict found it, and the row kept the other's name)
 * and dropped the other's older ones: acknowledged, and stored as no snapshot of its own. A save
 * now refuses such a column as an opening does, before writing.
 */
class PostgresSnapshotCollationTest {
  @BeforeAll
  static void startServer() {
    PostgresHostileDbaTest.startServer();
  }

  /**
   * A journal's snapshot saved at count 3, then the snapshot table's journal column put under a
   * case-insensitive collation; {@code other} is the name differing from the journal's in case.
   */
  private record CaseFolded(PostgresHostileDbaTest.Opened o, PostgresLocation at, String other) {
    static CaseFolded afterASave() throws Exception {
      PostgresHostileDbaTest.Opened o = PostgresHostileDbaTest.Opened.open();
      o.journal().close();
      PostgresLocation at = PostgresLocation.parse(PostgresTestServer.shared().url(o.database()));
      String other = o.name().toUpperCase(Locale.ROOT).replace("DID:KEY:", "did:key:");
      assertThat(other).isNotEqualTo(o.name());
      PostgresSnapshotStore.of(at, o.name()).save(PostgresSnapshotStoreTest.at(3));
      o.sql(
          "CREATE COLLATION ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false)",
          "ALTER TABLE mesh_journal_snapshot ALTER COLUMN journal TYPE text COLLATE ci");
      return new CaseFolded(o, at, other);
    }

    /** Puts the column back to the database's collation. */
    void putBack() throws Exception {
      o.sql(
          "ALTER TABLE mesh_journal_snapshot ALTER COLUMN journal TYPE text COLLATE"
              + " pg_catalog.\"default\"");
    }
  }

  @Test
  void aCaseInsensitiveSnapshotColumn_isRefusedAtSave_beforeAnotherJournalsRowIsReplaced()
      throws Exception {
    CaseFolded f = CaseFolded.afterASave();

    Throwable t =
        catchThrowable(
            () ->
                PostgresSnapshotStore.of(f.at(), f.other()).save(PostgresSnapshotStoreTest.at(3)));

    f.putBack();
    assertThat(t).isInstanceOf(SnapshotException.class);
    assertThat(((SnapshotException) t).reason()).isEqualTo(SnapshotException.Reason.IO);
    assertThat(t.getMessage())
        .contains("column journal of table mesh_journal_snapshot has collation \"ci\"");
  }

  /**
   * A read of the latest snapshot asks as a save does: under the same collation, the latest row of
   * a journal whose name differs in case alone was handed to a steward as its own, which would then
   * start from another steward's state (its budgets and its spent presentations).
   */
  @Test
  void aCaseInsensitiveSnapshotColumn_isRefusedAtRead_beforeAnotherJournalsRowIsReturned()
      throws Exception {
    CaseFolded f = CaseFolded.afterASave();

    PostgresSnapshotStore store = PostgresSnapshotStore.of(f.at(), f.other());
    Throwable whole = catchThrowable(store::latest);
    Throwable header = catchThrowable(store::latestHeader);

    f.putBack();
    for (Throwable t : new Throwable[] {whole, header}) {
      assertThat(t).isInstanceOf(SnapshotException.class);
      assertThat(((SnapshotException) t).reason()).isEqualTo(SnapshotException.Reason.IO);
      assertThat(t.getMessage())
          .contains("column journal of table mesh_journal_snapshot has collation \"ci\"")
          .contains("ALTER TABLE public.mesh_journal_snapshot ALTER COLUMN");
    }
    assertThat(store.latest()).as("its own, once the collation is put back").isEmpty();
  }
}
