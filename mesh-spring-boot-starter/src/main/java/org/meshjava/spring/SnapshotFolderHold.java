package org.meshjava.spring;

import org.jspecify.annotations.Nullable;
import org.meshjava.journal.SnapshotFolderClaim;

/**
 * The claim on the starter's snapshot folder ({@link
 * org.meshjava.journal.FileSnapshotStore#claim()}), taken as the steward is built and let go only
 * after it closes: its close saves a last snapshot, which a claim let go first would refuse. A bean
 * of its own because the steward's bean is the {@code Steward} itself, which cannot carry it;
 * Spring destroys the steward, which depends on it, first. Thread-safe.
 */
final class SnapshotFolderHold implements AutoCloseable {
  private @Nullable SnapshotFolderClaim claim;

  /** Holds {@code taken} until {@link #close()}. */
  synchronized void hold(SnapshotFolderClaim taken) {
    claim = taken;
  }

  /**
   * The claim held.
   *
   * @throws IllegalStateException if none is
   */
  synchronized SnapshotFolderClaim claim() {
    SnapshotFolderClaim c = claim;
    if (c == null) {
      throw new IllegalStateException("no snapshot folder is claimed");
    }
    return c;
  }

  /** Lets the folder go, if one was claimed; idempotent. */
  @Override
  public synchronized void close() {
    SnapshotFolderClaim c = claim;
    claim = null;
    if (c != null) {
      c.close();
    }
  }
}
