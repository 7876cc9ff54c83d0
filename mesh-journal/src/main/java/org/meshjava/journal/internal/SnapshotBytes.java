package org.meshjava.journal.internal;

import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * Random access to a snapshot's bytes, for {@link SnapshotHeaderReader} to read its header without
 * the rest: a file ({@code FileChannel::read}), or a store that fetches a slice at a time (a
 * database row read with {@code substring}), so that the receipt ids, tree levels and spent pairs
 * are never read. Internal: only the snapshot stores of mesh-journal and mesh-journal-postgres read
 * headers this way, so it is no part of the API an application sees.
 */
@FunctionalInterface
public interface SnapshotBytes {
  /**
   * Reads bytes of the snapshot from offset {@code at} into {@code dst}, at most {@code
   * dst.remaining()} of them, advancing its position.
   *
   * @return how many bytes were read; 0 or less at the end of the snapshot
   * @throws IOException if they cannot be read
   */
  int read(ByteBuffer dst, long at) throws IOException;
}
