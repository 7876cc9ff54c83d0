package org.meshjava.journal;

import java.nio.ByteBuffer;
import java.util.Optional;

/**
 * Where a steward keeps its journal snapshots (§2.2, SPEC.md §60.8). Works beside any {@link
 * Journal}: a snapshot is bound to a journal position by count and hash, not to a storage. The
 * store only keeps bytes; the steward checks what it loads ({@link Snapshot#open}), so a store need
 * not be trusted.
 *
 * <p>Implementations are thread-safe.
 */
public interface SnapshotStore {

  /**
   * Stores {@code snapshot} durably, as the latest; once this returns, {@link #latest()} returns it
   * even after a crash. Older snapshots may be dropped.
   *
   * @throws SnapshotException {@code TOO_LARGE} if it is larger than {@link #maxBytes()}, {@code
   *     IO} if it could not be stored (either way the previous latest stands)
   */
  void save(Snapshot snapshot) throws SnapshotException;

  /**
   * The largest snapshot, in bytes, this store saves and reads back; a steward takes no snapshot
   * that could not be (SPEC.md §60.8, "Size"). By default {@link Snapshot#MAX_BYTES}.
   */
  default long maxBytes() {
    return Snapshot.MAX_BYTES;
  }

  /**
   * The bytes of the latest snapshot stored, if any.
   *
   * @throws SnapshotException {@code IO} if the store cannot be read
   */
  Optional<byte[]> latest() throws SnapshotException;

  /**
   * The bytes of the latest snapshot stored, if any, as a read-only buffer for {@link
   * Snapshot#open(ByteBuffer, org.meshjava.core.identity.DidKey)}, which reads them in place. A
   * store may hand out bytes it does not copy (a file store maps the file) when it never changes
   * them afterwards; by default, {@link #latest()} wrapped.
   *
   * @throws SnapshotException {@code IO} if the store cannot be read
   */
  default Optional<ByteBuffer> latestBuffer() throws SnapshotException {
    return latest().map(b -> ByteBuffer.wrap(b).asReadOnlyBuffer());
  }

  /**
   * As {@link #latestBuffer()}, with the means to let the bytes go as soon as they are no longer
   * read ({@link SnapshotMapping#close()}): for a reader that keeps views of them while a store
   * goes on saving newer snapshots and deleting older ones, as a running steward does when it reads
   * back each snapshot it saves (SPEC.md §60.9). A file store maps the file into an arena that the
   * close unmaps, so a deleted file's disk space is freed then; by default, {@link
   * #latestBuffer()}'s bytes, which the garbage collector lets go ({@link
   * SnapshotMapping#collected}).
   *
   * @throws SnapshotException as {@link #latestBuffer()}
   */
  default Optional<SnapshotMapping> latestMapping() throws SnapshotException {
    return latestBuffer().map(SnapshotMapping::collected);
  }

  /**
   * The header of the latest snapshot stored, if any, read without its body's large sections: what
   * a start whose latest snapshot is {@code TOO_LARGE} to read checks the journal against ({@link
   * SnapshotHeader}). By default empty, for a store that cannot read part of a snapshot: such a
   * start then replays the whole journal unchecked against it (SPEC.md §60.8, "Size").
   *
   * @throws SnapshotException {@code MALFORMED} if the latest holds no readable header, {@code IO}
   *     if the store cannot be read
   */
  default Optional<SnapshotHeader> latestHeader() throws SnapshotException {
    return Optional.empty();
  }

  /** A short description for errors and logs. */
  String describe();
}
