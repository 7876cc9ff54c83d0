package org.meshjava.journal;

import java.lang.foreign.Arena;
import java.nio.ByteBuffer;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;

/**
 * A snapshot's bytes as a store hands them out to be read in place ({@link
 * SnapshotStore#latestMapping()}), together with the means to let them go: a file store maps the
 * file into an arena of its own, and {@link #close()} unmaps it at once, so a deleted file's disk
 * space is freed then rather than whenever the garbage collector gets to the mapping (SPEC.md
 * §60.9). Bytes a store does not map (an array, a mapping the collector owns) are let go by the
 * collector, and {@code close()} does nothing for them.
 *
 * <p>Whoever closes one must first make sure that nothing reads the bytes any more, nor any view of
 * them ({@link Snapshot#open(ByteBuffer, org.meshjava.core.identity.DidKey)} makes its state's
 * receipt ids, spent pairs and tree levels views of them): a read after the close throws {@link
 * IllegalStateException} (never a crash: the JDK waits for reads in progress on other threads and
 * fails later ones). Thread-safe; closing twice does nothing more.
 */
public final class SnapshotMapping implements AutoCloseable {
  private final ByteBuffer bytes;
  private final @Nullable Arena arena;
  private final AtomicBoolean closed = new AtomicBoolean();

  private SnapshotMapping(ByteBuffer bytes, @Nullable Arena arena) {
    this.bytes = Objects.requireNonNull(bytes, "bytes").asReadOnlyBuffer();
    this.arena = arena;
  }

  /**
   * Bytes that the garbage collector lets go, as it does an array or a buffer it maps: {@link
   * #close()} does nothing.
   */
  public static SnapshotMapping collected(ByteBuffer bytes) {
    return new SnapshotMapping(bytes, null);
  }

  /** Bytes mapped into {@code arena}, which {@link #close()} closes: for a store's own mapping. */
  static SnapshotMapping mapped(ByteBuffer bytes, Arena arena) {
    return new SnapshotMapping(bytes, Objects.requireNonNull(arena, "arena"));
  }

  /**
   * The bytes, read-only, from position 0 (a new buffer on each call, so callers do not share a
   * position). Valid until {@link #close()} when {@link #unmapsOnClose()}.
   */
  public ByteBuffer bytes() {
    return bytes.duplicate();
  }

  /**
   * Whether {@link #close()} unmaps the bytes, so that nothing may read them, or any view of them,
   * from then on; false for bytes the garbage collector lets go.
   */
  public boolean unmapsOnClose() {
    return arena != null;
  }

  /**
   * Unmaps the bytes now, when this store mapped them ({@link #unmapsOnClose()}); see the class
   * note for what the caller must ensure first.
   *
   * @throws IllegalStateException as {@link Arena#close()}, if an operation of the JDK's holds the
   *     bytes just then (an I/O on a channel from a buffer of them, say); they then stay mapped
   */
  @Override
  public void close() {
    if (arena != null && closed.compareAndSet(false, true)) {
      arena.close();
    }
  }
}
