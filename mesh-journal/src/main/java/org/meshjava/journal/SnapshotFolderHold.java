package org.meshjava.journal;

import org.jspecify.annotations.Nullable;

/**
 * A steward's hold on a {@link FileSnapshotStore}'s folder, from {@link
 * FileSnapshotStore#claimForSteward(Journal)} until {@link #close()}: while it is open, no other
 * steward is built over that store, whoever claimed the folder. It carries the folder's claim when
 * the build took one, and lets that go too at close; under a claim the store's caller took, it
 * leaves that claim to its caller.
 *
 * <p>Thread-safe: {@link #close} may be called from any thread, and more than once.
 */
public final class SnapshotFolderHold implements AutoCloseable {
  private final FileSnapshotStore store;
  // The claim taken for this steward; null where the caller's own claim covers it.
  private final @Nullable SnapshotFolderClaim taken;
  private boolean closed;

  SnapshotFolderHold(FileSnapshotStore store, @Nullable SnapshotFolderClaim taken) {
    this.store = store;
    this.taken = taken;
  }

  /**
   * Lets the store take another steward, and lets go of the claim this hold took, if any; a second
   * call does nothing.
   */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    store.stewardClosed(this);
    if (taken != null) {
      taken.close();
    }
  }
}
