package org.meshjava.spring;

import org.jspecify.annotations.Nullable;
import org.meshjava.journal.FileSnapshotStore;
import org.meshjava.journal.SnapshotException;
import org.meshjava.journal.SnapshotFolderClaim;

/**
 * The claim on the snapshot folder of the starter's steward ({@link FileSnapshotStore#claim()}),
 * held for the steward's life as {@code mesh serve} holds it: without it, two applications given
 * one {@code mesh.snapshots.dir} for two journals delete each other's snapshots, and each then
 * refuses to restart from the one it finds (SPEC.md §60.8).
 *
 * <p>A bean the steward's bean depends on, so Spring closes it after the steward (whose close saves
 * a last snapshot), when the context closes or its start fails. Thread-safe.
 */
final class SnapshotFolderHold implements AutoCloseable {
  private @Nullable SnapshotFolderClaim claim;

  /**
   * Claims the folder of {@code store}, to be let go at {@link #close()}.
   *
   * @param property the property that named the folder, for the refusal
   * @throws IllegalStateException naming {@code property} and the folder: another steward holds it
   *     (in this process or another), or it is not a folder or cannot be locked
   */
  synchronized void claim(FileSnapshotStore store, String property) {
    if (claim != null) {
      throw new IllegalStateException("one steward claims one snapshot folder");
    }
    try {
      claim = store.claim();
    } catch (SnapshotException e) {
      throw new IllegalStateException(
          property
              + ": "
              + e.detail()
              + (e.reason() == SnapshotException.Reason.IN_USE
                  ? " (set mesh.snapshots.dir to a folder no other application uses)"
                  : ""),
          e);
    }
  }

  /** Lets the folder go; nothing if none was claimed or it was let go already. */
  @Override
  public synchronized void close() {
    SnapshotFolderClaim held = claim;
    claim = null;
    if (held != null) {
      held.close();
    }
  }
}
