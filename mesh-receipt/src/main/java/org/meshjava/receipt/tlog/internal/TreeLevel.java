package org.meshjava.receipt.tlog.internal;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.security.MessageDigest;
import java.util.Arrays;
import org.meshjava.receipt.tlog.TreeHash;

/**
 * One level of a {@link MerkleTree}'s stored hashes, 32 bytes each, by position: a read-only
 * <em>base</em> holding the first {@code baseCount} of them, read in place from the packed levels a
 * tree was restored over ({@link MerkleTree#overLevels}) and never copied or written, followed by a
 * growable heap <em>tail</em> for every position from {@code baseCount} on. A level is only ever
 * written at its end (a complete subtree never changes), so writes always land in the tail, and a
 * tree built by appends has an empty base and keeps everything in the tail.
 *
 * <p>The base is only read with absolute gets, which change no buffer state, so bases sliced from
 * one shared buffer are safe to read together. Everything else is guarded by the tree's lock: a
 * level is not thread-safe on its own.
 */
final class TreeLevel {
  private static final int LENGTH = TreeHash.LENGTH;

  /** The tail's first allocation, in bytes: 16 hashes. */
  private static final int FIRST_TAIL = LENGTH * 16;

  private static final byte[] NO_TAIL = new byte[0];

  /** Read-only, position 0, big-endian; {@code baseCount} hashes, read only by absolute gets. */
  private final ByteBuffer base;

  private final long baseCount;

  /** The hash at position {@code baseCount + i} at bytes {@code 32 i}; grown by doubling. */
  private byte[] tail = NO_TAIL;

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

  /** Copies the hash at {@code position} into {@code dst}'s first 32 bytes. */
  void read(long position, byte[] dst) {
    if (position < baseCount) {
      base.get(baseOffset(position), dst, 0, LENGTH);
    } else {
      System.arraycopy(tail, tailOffset(position), dst, 0, LENGTH);
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
      sha.update(tail, tailOffset(position), LENGTH);
    }
  }

  /** The first 8 bytes of the hash at {@code position}, big-endian. */
  long prefix(long position) {
    if (position < baseCount) {
      return base.getLong(baseOffset(position));
    }
    int offset = tailOffset(position);
    long v = 0;
    for (int i = 0; i < 8; i++) {
      v = (v << 8) | (tail[offset + i] & 0xff);
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
      stored = tail;
      offset = tailOffset(position);
    }
    return Arrays.equals(stored, offset, offset + LENGTH, hash, 0, LENGTH);
  }

  /**
   * Files {@code hash}'s first 32 bytes at {@code position}, growing the tail as needed.
   *
   * @throws IllegalStateException if {@code position} is in the base, which is never written
   */
  void put(long position, byte[] hash) {
    if (position < baseCount) {
      throw new IllegalStateException(
          "position " + position + " is in the level's read-only base of " + baseCount);
    }
    int offset = tailOffset(position);
    if (offset + LENGTH > tail.length) {
      tail = Arrays.copyOf(tail, Math.max(Math.max(tail.length * 2, FIRST_TAIL), offset + LENGTH));
    }
    System.arraycopy(hash, 0, tail, offset, LENGTH);
  }

  /** Copies the level's first {@code count} hashes, packed, into {@code out} from {@code at}. */
  void copyTo(long count, byte[] out, int at) {
    int fromBase = (int) Math.min(count, baseCount);
    base.get(0, out, at, fromBase * LENGTH);
    int fromTail = Math.toIntExact((count - fromBase) * LENGTH);
    System.arraycopy(tail, 0, out, at + fromBase * LENGTH, fromTail);
  }

  private static int baseOffset(long position) {
    // The base is at most a buffer's capacity, so a position in it has an int offset.
    return (int) (position * LENGTH);
  }

  private int tailOffset(long position) {
    return Math.toIntExact((position - baseCount) * LENGTH);
  }
}
