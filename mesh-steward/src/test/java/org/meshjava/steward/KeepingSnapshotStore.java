package org.meshjava.steward;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jspecify.annotations.Nullable;
import org.meshjava.journal.Snapshot;
import org.meshjava.journal.SnapshotStore;

/**
 * A snapshot store in memory that keeps every snapshot saved, so a test can restart from any of
 * them; {@link #latest()} is the last saved, or the one pinned. Test support only.
 */
final class KeepingSnapshotStore implements SnapshotStore {
  final List<byte[]> saved = new CopyOnWriteArrayList<>();
  private final byte @Nullable [] pinned;

  KeepingSnapshotStore() {
    this(null);
  }

  /** A store whose latest is always {@code pinned} (saves are still kept). */
  KeepingSnapshotStore(byte @Nullable [] pinned) {
    this.pinned = pinned;
  }

  @Override
  public void save(Snapshot snapshot) {
    saved.add(snapshot.encoded());
  }

  @Override
  public Optional<byte[]> latest() {
    if (pinned != null) {
      return Optional.of(pinned.clone());
    }
    return saved.isEmpty() ? Optional.empty() : Optional.of(saved.getLast().clone());
  }

  @Override
  public String describe() {
    return "test snapshot store";
  }
}
