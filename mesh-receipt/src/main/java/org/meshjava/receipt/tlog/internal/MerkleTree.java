package org.meshjava.receipt.tlog.internal;

import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import org.jspecify.annotations.Nullable;
import org.meshjava.receipt.tlog.ConsistencyProof;
import org.meshjava.receipt.tlog.InclusionProof;
import org.meshjava.receipt.tlog.LogException;
import org.meshjava.receipt.tlog.TreeHash;

/**
 * An append-only RFC 9162 Merkle tree: its leaves in append order, its root at any past size, and
 * inclusion and consistency proofs between any sizes. Thread-safe: appends and reads are serialised
 * on the tree.
 *
 * <p>Design note. Level 0 holds every leaf hash; level {@code k} holds the hash of every complete,
 * aligned subtree of {@code 2^k} leaves, filled in as soon as its last leaf arrives. That is at
 * most two hashes per leaf (64 bytes), and it makes every hash a proof needs either a lookup (a
 * complete subtree) or a short fold of lookups along the right edge (an incomplete one), so a root
 * or a proof at any size costs O(log n) hashes. The recursion in {@link #subtreeHash} is RFC 9162's
 * definition of MTH verbatim; the levels are only a cache of its results, so correctness does not
 * depend on them.
 *
 * <p>Each level ({@link TreeLevel}) is a read-only base followed by a heap tail of fixed-size
 * chunks (so the heap holds the hashes and at most one part-filled chunk per level). A tree
 * restored over saved levels ({@link #overLevels}) reads them in place as its bases, so a restart
 * copies none of the snapshot's bytes (a memory-mapped file, say) into fresh memory; a tree built
 * by appends has empty bases. A level is only ever written at its end (a complete subtree never
 * changes), so every append goes to the tails and the bases are never written; a read takes the
 * base or the tail by position.
 *
 * <p>Leaves can also be found by their hash (what RFC 6962's {@code get-proof-by-hash} answers): an
 * open-addressing table maps the first 8 bytes of each leaf hash, which SHA-256 spreads evenly, to
 * its index, and a hit is confirmed against the stored hash. It costs 8 bytes per leaf at most and
 * is derived from level 0 alone, so a saved tree need not carry it.
 */
public final class MerkleTree {
  /** levels.get(k) holds (size >> k) hashes of 32 bytes, its base's and then its tail's. */
  private final List<TreeLevel> levels = new ArrayList<>();

  /**
   * Leaf index + 1 by leaf-hash prefix (0: empty slot); never more than half full. Built on the
   * first {@link #indexOf}, so a tree restored from its levels ({@link #overLevels}, {@link
   * #ofLevels}) pays nothing for it until a lookup by hash needs it.
   */
  private int @Nullable [] byHash;

  private long size;

  /**
   * The digest appends hash with, one per tree so that appending a leaf allocates none; guarded by
   * the tree's lock, like everything else.
   */
  private final MessageDigest sha;

  /**
   * Holds a hash read from a level's base while it is hashed or compared, so that neither
   * allocates; guarded by the tree's lock.
   */
  private final byte[] scratch = new byte[TreeHash.LENGTH];

  /** Creates an empty tree. */
  public MerkleTree() {
    try {
      sha = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java platform provides SHA-256", e);
    }
  }

  /**
   * The packed length of a tree of {@code size} leaves' levels, as {@link #packedLevels} writes
   * them: {@code size >> k} hashes on level {@code k}, for every level that holds one (about two
   * hashes per leaf).
   */
  public static long packedLength(long size) {
    if (size < 0) {
      throw new IllegalArgumentException("size is non-negative: " + size);
    }
    long hashes = 0;
    for (long n = size; n > 0; n >>= 1) {
      hashes += n;
    }
    return hashes * TreeHash.LENGTH;
  }

  /**
   * The tree as it stood at {@code size} leaves, as its levels packed one after another (level 0,
   * the leaf hashes, first; {@code size >> k} hashes of level {@code k}): what a saved state
   * carries so that a restart does not rehash every leaf ({@link #ofLevels}). A complete subtree
   * never changes, so these are exactly the levels a tree of that size has.
   *
   * @throws IllegalArgumentException unless {@code 0 <= size <= size()}
   */
  public synchronized byte[] packedLevels(long size) {
    if (size < 0 || size > this.size) {
      throw new IllegalArgumentException("size " + size + " is outside 0.." + this.size);
    }
    byte[] out = new byte[Math.toIntExact(packedLength(size))];
    int at = 0;
    int level = 0;
    for (long n = size; n > 0; n >>= 1, level++) {
      levels.get(level).copyTo(n, out, at);
      at += Math.toIntExact(n * TreeHash.LENGTH);
    }
    return out;
  }

  /**
   * A tree of {@code size} leaves restored from {@link #packedLevels}, without hashing: the levels
   * are taken as given, so they must come from a source as trusted as the tree itself (a snapshot
   * this steward signed). A checkpoint published on the tree still checks its root against them.
   *
   * @throws IllegalArgumentException if {@code packed} is not {@link #packedLength}{@code (size)}
   *     bytes
   */
  public static MerkleTree ofLevels(long size, byte[] packed) {
    return ofLevels(size, ByteBuffer.wrap(packed));
  }

  /**
   * As {@link #ofLevels(long, byte[])}, from the bytes between {@code packed}'s position and its
   * limit, copied once (a snapshot's section is read from a view of it); the buffer's position and
   * limit are left as they were. {@link #overLevels} restores without the copy.
   *
   * @throws IllegalArgumentException if those bytes are not {@link #packedLength}{@code (size)}
   */
  public static MerkleTree ofLevels(long size, ByteBuffer packed) {
    checkPacked(size, packed);
    byte[] copy = new byte[packed.remaining()];
    packed.get(packed.position(), copy);
    return overLevels(size, ByteBuffer.wrap(copy));
  }

  /**
   * A tree of {@code size} leaves whose levels are the packed bytes from {@code packed}'s position
   * to its limit, as {@link #packedLevels} wrote them, read there and never copied: a restart from
   * a snapshot (a read-only memory-mapped file, an immutable array) allocates and fills no memory
   * for them. As with {@link #ofLevels(long, byte[])} they are taken without hashing, so they must
   * come from a source as trusted as the tree itself. The caller must not change those bytes
   * afterwards (the tree reads them for as long as it lives); appends after the restore are kept
   * apart from them, on the heap, and the tree never writes them. The buffer's position and limit
   * are left as they were.
   *
   * @throws IllegalArgumentException if those bytes are not {@link #packedLength}{@code (size)}
   */
  public static MerkleTree overLevels(long size, ByteBuffer packed) {
    checkPacked(size, packed);
    MerkleTree t = new MerkleTree();
    int at = 0;
    for (long n = size; n > 0; n >>= 1) {
      // packedLength(size) fits the buffer, so every level and offset in it is an int.
      int len = (int) (n * TreeHash.LENGTH);
      t.levels.add(TreeLevel.over(packed, packed.position() + at, len));
      at += len;
    }
    t.size = size;
    return t;
  }

  private static void checkPacked(long size, ByteBuffer packed) {
    if (packed.remaining() != packedLength(size)) {
      throw new IllegalArgumentException(
          packed.remaining()
              + " bytes are not the levels of a tree of "
              + size
              + " leaves ("
              + packedLength(size)
              + " bytes)");
    }
  }

  /**
   * Reads this tree's first {@code saved.size()} leaves, and every complete subtree over them, from
   * {@code saved}'s levels from now on, and drops the heap copies of them: a steward that has just
   * written its tree into a snapshot file and mapped it back keeps on the heap only what came after
   * (SPEC.md §60.9). {@code saved} must be a tree restored over its levels ({@link #overLevels})
   * with nothing appended, and no larger than this one. Its root must be this tree's root at its
   * size, which is checked; a tree that does not match (or is not restored over levels, or covers
   * fewer leaves than this tree's present bases) changes nothing. The same rule as {@link
   * #overLevels} applies: its bytes must never change while this tree lives.
   *
   * @return whether the levels were taken
   */
  public boolean adoptLevels(MerkleTree saved) {
    long n;
    TreeHash savedRoot;
    List<TreeLevel> savedLevels;
    synchronized (saved) {
      n = saved.size;
      savedRoot = n == 0 ? TreeHash.empty() : saved.subtreeHash(0, n);
      savedLevels = List.copyOf(saved.levels);
    }
    synchronized (this) {
      if (n == 0 || n > size || !savedRoot.equals(subtreeHash(0, n))) {
        return false;
      }
      for (int k = 0; k < savedLevels.size(); k++) {
        TreeLevel mine = levels.get(k);
        TreeLevel theirs = savedLevels.get(k);
        if (theirs.tailBytes() != 0 || theirs.baseCount() < mine.baseCount()) {
          return false;
        }
      }
      for (int k = 0; k < savedLevels.size(); k++) {
        levels.set(k, levels.get(k).rebasedOn(savedLevels.get(k)));
      }
      return true;
    }
  }

  /**
   * The bytes this tree holds on the heap: its levels' tails and its leaf lookup, not the bases it
   * reads in place. For tests and measurements of what a steward keeps (SPEC.md §60.9).
   */
  public synchronized long heapBytes() {
    long bytes = byHash == null ? 0 : 4L * byHash.length;
    for (TreeLevel level : levels) {
      bytes += level.tailBytes();
    }
    return bytes;
  }

  /** Appends an entry (its leaf hash is SHA-256(0x00 || entry)) and returns its leaf index. */
  public synchronized long append(byte[] entry) {
    sha.update((byte) 0x00);
    sha.update(entry);
    return appendHash(sha.digest());
  }

  /** Appends a leaf whose leaf hash is already known, and returns its leaf index. */
  public synchronized long appendLeafHash(TreeHash leafHash) {
    return appendHash(leafHash.bytes());
  }

  /**
   * Files the leaf hash on level 0 and every subtree it completes on the levels above. Works on the
   * packed bytes with the tree's one digest: a restart appends every receipt the journal holds, so
   * this is the rebuild's whole cost (about two SHA-256 per leaf, no objects per level).
   */
  private long appendHash(byte[] leafHash) {
    long index = size;
    byte[] carry = leafHash;
    long position = index;
    for (int level = 0; ; level++) {
      put(level, position, carry);
      if ((position & 1) == 0) {
        break;
      }
      sha.update((byte) 0x01);
      levels.get(level).update(sha, position - 1, scratch);
      sha.update(carry);
      carry = sha.digest();
      position >>= 1;
    }
    size = index + 1;
    int[] table = byHash;
    if (table != null) {
      if (2 * size > table.length) {
        rehash(table.length * 2);
      } else {
        insert(table, index);
      }
    }
    return index;
  }

  /**
   * Returns the index of the first leaf whose leaf hash is {@code leafHash}, or empty when no leaf
   * has it.
   */
  public synchronized OptionalLong indexOf(TreeHash leafHash) {
    byte[] wanted = leafHash.bytes();
    int[] table = byHash;
    if (table == null) {
      table = rehash(Math.max(64, Integer.highestOneBit((int) Math.max(1, 2 * size)) * 2));
    }
    int mask = table.length - 1;
    for (int slot = (int) prefix(wanted, 0) & mask; table[slot] != 0; slot = (slot + 1) & mask) {
      int index = table[slot] - 1;
      // A filled slot means a leaf, so level 0 exists.
      if (levels.get(0).holds(index, wanted, scratch)) {
        return OptionalLong.of(index);
      }
    }
    return OptionalLong.empty();
  }

  private int[] rehash(int capacity) {
    int[] table = new int[capacity];
    for (long i = 0; i < size; i++) {
      insert(table, i);
    }
    byHash = table;
    return table;
  }

  /** Files leaf {@code index} (already on level 0) in {@code table} by its hash's prefix. */
  private void insert(int[] table, long index) {
    int mask = table.length - 1;
    int slot = (int) levels.get(0).prefix(index) & mask;
    while (table[slot] != 0) {
      slot = (slot + 1) & mask;
    }
    table[slot] = Math.toIntExact(index + 1);
  }

  private static long prefix(byte[] bytes, int offset) {
    long v = 0;
    for (int i = 0; i < 8; i++) {
      v = (v << 8) | (bytes[offset + i] & 0xff);
    }
    return v;
  }

  /** Returns the number of leaves. */
  public synchronized long size() {
    return size;
  }

  /** Returns the current root. */
  public synchronized TreeHash root() {
    return size == 0 ? TreeHash.empty() : subtreeHash(0, size);
  }

  /**
   * Returns the root the tree had when it held {@code treeSize} leaves.
   *
   * @throws LogException {@code OUT_OF_RANGE} when {@code treeSize} is negative or above the size
   */
  public synchronized TreeHash root(long treeSize) throws LogException {
    checkSize(treeSize);
    return treeSize == 0 ? TreeHash.empty() : subtreeHash(0, treeSize);
  }

  /**
   * Returns the leaf hash at {@code index}.
   *
   * @throws LogException {@code OUT_OF_RANGE} when there is no such leaf
   */
  public synchronized TreeHash leafHash(long index) throws LogException {
    if (index < 0 || index >= size) {
      throw new LogException(
          LogException.Reason.OUT_OF_RANGE, "no leaf " + index + " in a tree of " + size);
    }
    return get(0, index);
  }

  /**
   * Returns the inclusion proof of leaf {@code index} in the tree of size {@code treeSize} (RFC
   * 9162 §2.1.3.1).
   *
   * @throws LogException {@code OUT_OF_RANGE} unless {@code 0 <= index < treeSize <= size()}
   */
  public synchronized InclusionProof inclusionProof(long index, long treeSize) throws LogException {
    checkSize(treeSize);
    if (index < 0 || index >= treeSize) {
      throw new LogException(
          LogException.Reason.OUT_OF_RANGE, "no leaf " + index + " in a tree of " + treeSize);
    }
    List<TreeHash> path = new ArrayList<>();
    path(index, 0, treeSize, path);
    return new InclusionProof(index, treeSize, path);
  }

  /**
   * Returns the consistency proof from the tree of size {@code fromSize} to that of size {@code
   * toSize} (RFC 9162 §2.1.4.1); empty when the sizes are equal.
   *
   * @throws LogException {@code OUT_OF_RANGE} unless {@code 0 < fromSize <= toSize <= size()}
   */
  public synchronized ConsistencyProof consistencyProof(long fromSize, long toSize)
      throws LogException {
    checkSize(toSize);
    if (fromSize <= 0 || fromSize > toSize) {
      throw new LogException(
          LogException.Reason.OUT_OF_RANGE,
          "no consistency proof from size " + fromSize + " to size " + toSize);
    }
    List<TreeHash> path = new ArrayList<>();
    if (fromSize < toSize) {
      subproof(fromSize, 0, toSize, true, path);
    }
    return new ConsistencyProof(fromSize, toSize, path);
  }

  /** PATH(m, D[start:start+n]) of RFC 9162 §2.1.3.1, audit path from the leaf upwards. */
  private void path(long m, long start, long n, List<TreeHash> out) {
    if (n == 1) {
      return;
    }
    long k = largestPowerOfTwoBelow(n);
    if (m < k) {
      path(m, start, k, out);
      out.add(subtreeHash(start + k, n - k));
    } else {
      path(m - k, start + k, n - k, out);
      out.add(subtreeHash(start, k));
    }
  }

  /** SUBPROOF(m, D[start:start+n], b) of RFC 9162 §2.1.4.1. */
  private void subproof(long m, long start, long n, boolean b, List<TreeHash> out) {
    if (m == n) {
      if (!b) {
        out.add(subtreeHash(start, n));
      }
      return;
    }
    long k = largestPowerOfTwoBelow(n);
    if (m <= k) {
      subproof(m, start, k, b, out);
      out.add(subtreeHash(start + k, n - k));
    } else {
      subproof(m - k, start + k, n - k, false, out);
      out.add(subtreeHash(start, k));
    }
  }

  /** MTH(D[start:start+n]) for n >= 1: a lookup when the subtree is complete and aligned. */
  private TreeHash subtreeHash(long start, long n) {
    if (Long.bitCount(n) == 1 && start % n == 0) {
      int level = Long.numberOfTrailingZeros(n);
      return get(level, start >> level);
    }
    long k = largestPowerOfTwoBelow(n);
    return TreeHash.node(subtreeHash(start, k), subtreeHash(start + k, n - k));
  }

  /** The largest power of two strictly below n (n >= 2). */
  static long largestPowerOfTwoBelow(long n) {
    return Long.highestOneBit(n - 1);
  }

  private void checkSize(long treeSize) throws LogException {
    if (treeSize < 0 || treeSize > size) {
      throw new LogException(
          LogException.Reason.OUT_OF_RANGE, "tree size " + treeSize + " is outside 0.." + size);
    }
  }

  private TreeHash get(int level, long position) {
    byte[] hash = new byte[TreeHash.LENGTH];
    levels.get(level).read(position, hash);
    return TreeHash.of(hash);
  }

  private void put(int level, long position, byte[] hash) {
    if (levels.size() == level) {
      levels.add(TreeLevel.empty());
    }
    levels.get(level).put(position, hash);
  }
}
