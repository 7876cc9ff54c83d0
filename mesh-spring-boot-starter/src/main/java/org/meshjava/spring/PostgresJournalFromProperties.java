package org.meshjava.spring;

import org.meshjava.journal.FileSnapshotStore;
import org.meshjava.journal.Journal;
import org.meshjava.journal.JournalException;
import org.meshjava.journal.postgres.PostgresJournal;
import org.meshjava.journal.postgres.PostgresLocation;
import org.meshjava.journal.postgres.PostgresSnapshotStore;
import org.meshjava.steward.Steward;

/**
 * {@code mesh.journal} as a PostgreSQL database ({@code org.meshjava:mesh-journal-postgres}, an
 * optional dependency): the only class of the starter that names it, loaded only when the property
 * holds a {@code postgresql://} URL and the module is on the class path.
 */
final class PostgresJournalFromProperties {
  private PostgresJournalFromProperties() {}

  /**
   * Opens the journal named by the steward's identity in the database {@code url} names, as {@code
   * mesh serve} does, with its snapshots in the same database unless {@code mesh.snapshots.dir}
   * names a directory.
   *
   * @return the journal, now the builder's
   * @throws IllegalStateException naming {@code mesh.journal} if the URL is malformed
   * @throws JournalException {@code LOCKED} while another steward holds the journal, {@code
   *     CORRUPT}, or {@code IO} if the database cannot be reached
   */
  static Journal open(
      Steward.Builder sb,
      String url,
      MeshProperties.Snapshots snaps,
      SnapshotFolderHold snapshotFolder)
      throws JournalException {
    PostgresLocation location;
    try {
      location = PostgresLocation.parse(url);
    } catch (IllegalArgumentException e) {
      // The message names the fault, never the password.
      throw new IllegalStateException("mesh.journal: " + e.getMessage(), e);
    }
    String name = sb.identity().toString();
    Journal journal = PostgresJournal.open(location, name);
    sb.journal(journal);
    if (snaps.enabled()) {
      var dir = snaps.dir();
      try {
        StewardFromProperties.snapshots(
            sb,
            dir != null
                ? StewardFromProperties.claimed(
                    new FileSnapshotStore(dir), null, snaps, snapshotFolder)
                : PostgresSnapshotStore.of(location, name),
            snaps);
      } catch (RuntimeException | Error e) {
        // No steward took the journal yet, so none would close it and release its lock.
        try {
          journal.close();
        } catch (RuntimeException closing) {
          e.addSuppressed(closing);
        }
        throw e;
      }
    }
    return journal;
  }
}
