package org.meshjava.receipt.tlog.internal;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.meshjava.receipt.tlog.TreeHash;

/**
 * One level of a {@link MerkleTree}'s stored hashes, 32 bytes each, by position: a read-only
 * <em>base</em> holding the first {@code baseCount} of them, read in place from the packed levels a
 * tree was restored over ({@link MerkleTree#overLevels}) and never copied or written, followed by a
 * heap <em>tail</em> for every position from {@code baseCount} on. A level is only ever written at
 * its end (a complete subtree never changes), so writes always land in the tail, and a tree built
 * by appends has an empty base and keeps everything in the tail.
 *
 * <p>Design note. The tail is a list of fixed-size chunks of {@value #CHUNK} hashes, chunk {@code
 * c} holding positions {@code c * CHUNK ..} (chunks wholly inside the base are never allocated),
 * not one array grown by doubling: a doubled array is up to twice what it holds, needs the old and
 * the new copy at once while it grows, and cannot pass 2^31 bytes (67 million leaf hashes on level
 * 0, which a steward at 50 receipts a second reaches in about two weeks). Only chunk 0 starts small
 * and doubles up to its full size, so a small tree costs little.
 *
 * <p>The base is only read with absolute gets, which change no buffer state, so bases sliced from
 * one shared buffer are safe to read together. Everything else is guarded by the tree's lock: a
 * level is not thread-safe on its own.
 */
final class TreeLevel {
  private static final int LENGTH = TreeHash.LENGTH;

  /** Hashes per tail chunk: 128 KiB each. */
  static final int CHUNK = 4096;

  /** Chunk 0's first allocation, in hashes. */
  private static final int FIRST_CHUNK = 16;

  /** Read-only, position 0, big-endian; {@code baseCount} hashes, read only by absolute gets. */
  private final ByteBuffer base;

  private final long baseCount;

  /**
   * Chunk {@code c} holds positions {@code c * CHUNK ..}; null for a chunk wholly in the base.
   * Every chunk is {@code CHUNK * 32} bytes except chunk 0, which may be shorter until it fills.
   */
  private final List<byte @Nullable []> chunks = new ArrayList<>();

  private TreeLevel(ByteBuffer base) {
    this.base = base;
    this.baseCount = base.capacity() / LENGTH;
  }

  /** A level with no base: everything it will hold is put into its tail. */
  static TreeLevel empty() {
    return new TreeLevel(ByteBuffer.allocate(0).asReadOnlyBuffer());
  }

  /**
   * A level whose base is the {@code length} bytes of {@code packed} from absolute index {@code
   * index}, read there (through a read-only slice) and never copied; {@code packed}'s position,
   * limit and contents are left alone.
   */
  static TreeLevel over(ByteBuffer packed, int index, int length) {
    if (length % LENGTH != 0) {
      throw new IllegalArgumentException(length + " bytes are not whole hashes");
    }
    return new TreeLevel(
        packed.slice(index, length).asReadOnlyBuffer().order(ByteOrder.BIG_ENDIAN));
  }

  /**
   * This level with {@code saved}'s base in place of its own: the same hashes, the first {@code
   * saved}'s count of them read from there, and every tail chunk wholly inside that base dropped.
   * {@code saved} must hold this level's first hashes (the caller checks) and no tail.
   *
   * @throws IllegalArgumentException if {@code saved} has a tail or a shorter base than this level
   */
  TreeLevel rebasedOn(TreeLevel saved) {
    if (!saved.chunks.isEmpty() || saved.baseCount < baseCount) {
      throw new IllegalArgumentException(
          "a level of " + saved.baseCount + " saved hashes cannot replace a base of " + baseCount);
    }
    TreeLevel t = new TreeLevel(saved.base);
    for (int c = 0; c < chunks.size(); c++) {
      // A chunk whose every position is in the new base is never read again.
      t.chunks.add((long) (c + 1) * CHUNK <= t.baseCount ? null : chunks.get(c));
    }
    return t;
  }

  /** How many hashes the base holds. */
  long baseCount() {
    return baseCount;
  }

  /** Copies the hash at {@code position} into {@code dst}'s first 32 bytes. */
  void read(long position, byte[] dst) {
    if (position < baseCount) {
      base.get(baseOffset(position), dst, 0, LENGTH);
    } else {
      System.arraycopy(chunk(position), chunkOffset(position), dst, 0, LENGTH);
    }
  }

  /**
   * Feeds the hash at {@code position} to {@code sha}: straight from the tail, or through {@code
   * scratch} (32 bytes or more, the caller's) from the base, so it allocates nothing.
   */
  void update(MessageDigest sha, long position, byte[] scratch) {
    if (position < baseCount) {
      base.get(baseOffset(position), scratch, 0, LENGTH);
      sha.update(scratch, 0, LENGTH);
    } else {
      sha.update(chunk(position), chunkOffset(position), LENGTH);
    }
  }

  /** The first 8 bytes of the hash at {@code position}, big-endian. */
  long prefix(long position) {
    if (position < baseCount) {
      return base.getLong(baseOffset(position));
    }
    byte[] chunk = chunk(position);
    int offset = chunkOffset(position);
    long v = 0;
    for (int i = 0; i < 8; i++) {
      v = (v << 8) | (chunk[offset + i] & 0xff);
    }
    return v;
  }

  /**
   * Whether the hash at {@code position} is {@code hash}'s first 32 bytes; {@code scratch} (32
   * bytes or more, the caller's) holds a base hash while it is compared.
   */
  boolean holds(long position, byte[] hash, byte[] scratch) {
    byte[] stored;
    int offset;
    if (position < baseCount) {
      base.get(baseOffset(position), scratch, 0, LENGTH);
      stored = scratch;
      offset = 0;
    } else {
      stored = chunk(position);
      offset = chunkOffset(position);
    }
    return Arrays.equals(stored, offset, offset + LENGTH, hash, 0, LENGTH);
  }

  /**
   * Files {@code hash}'s first 32 bytes at {@code position}, allocating its chunk as needed.
   *
   * @throws IllegalStateException if {@code position} is in the level's read-only base, which is
   *     never written
   */
  void put(long position, byte[] hash) {
    if (position < baseCount) {
      throw new IllegalStateException(
          "position " + position + " is in the level's read-only base of " + baseCount);
    }
    int c = Math.toIntExact(position / CHUNK);
    while (chunks.size() <= c) {
      chunks.add(null);
    }
    byte[] chunk = chunks.get(c);
    int offset = chunkOffset(position);
    if (chunk == null || offset + LENGTH > chunk.length) {
      int bytes = CHUNK * LENGTH;
      if (c == 0) {
        // Chunk 0 grows by doubling, so that a small tree costs little.
        int had = chunk == null ? 0 : chunk.length;
        bytes = Math.min(bytes, Math.max(Math.max(2 * had, FIRST_CHUNK * LENGTH), offset + LENGTH));
      }
      chunk = chunk == null ? new byte[bytes] : Arrays.copyOf(chunk, bytes);
      chunks.set(c, chunk);
    }
    System.arraycopy(hash, 0, chunk, offset, LENGTH);
  }

  /** Copies the level's first {@code count} hashes, packed, into {@code out} from {@code at}. */
  void copyTo(long count, byte[] out, int at) {
    int fromBase = (int) Math.min(count, baseCount);
    base.get(0, out, at, fromBase * LENGTH);
    int to = at + fromBase * LENGTH;
    for (long p = fromBase; p < count; ) {
      long n = Math.min(count - p, CHUNK - p % CHUNK);
      int len = Math.toIntExact(n * LENGTH);
      System.arraycopy(chunk(p), chunkOffset(p), out, to, len);
      to += len;
      p += n;
    }
  }

  /** The bytes the tail has allocated: what this level keeps on the heap beyond its base. */
  long tailBytes() {
    long bytes = 0;
    for (byte[] chunk : chunks) {
      bytes += chunk == null ? 0 : chunk.length;
    }
    return bytes;
  }

  private byte[] chunk(long position) {
    return Objects.requireNonNull(
        chunks.get(Math.toIntExact(position / CHUNK)), "a position past the base is in a chunk");
  }

  private static int chunkOffset(long position) {
    return (int) (position % CHUNK) * LENGTH;
  }

  private static int baseOffset(long position) {
    // The base is at most a buffer's capacity, so a position in it has an int offset.
    return (int) (position * LENGTH);
  }
}
