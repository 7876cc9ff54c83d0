package org.meshjava.receipt.tlog.internal;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.List;
import org.meshjava.receipt.tlog.LogException;
import org.meshjava.receipt.tlog.TreeHash;

/**
 * The roots an append-only RFC 9162 tree has at every size from a base size on, without the tree:
 * what a check of checkpoints streaming past needs ({@code mesh journal verify}, SPEC.md §65). A
 * checkpoint may sign any size from the latest one checked up to the leaves so far, so the window
 * keeps the right edge of the tree at the base (one hash per set bit of the base size, at most 64)
 * and the leaf hashes after it; {@link #advanceTo} moves the base forward and forgets the leaves it
 * passes. Its memory is therefore 32 bytes per leaf after the base, whatever the tree's size, where
 * a {@link MerkleTree} keeps about 64 bytes for every leaf. Not thread-safe.
 *
 * <p>Design note. MTH of n leaves (RFC 9162 §2.1.1) is the fold, from the right, of the hashes of
 * the complete subtrees that n's binary digits cut the leaves into, the largest first: so the edge
 * at the base plus the leaves up to a size give that size's root in O(size - base) hashes, and
 * moving the base folds each leaf into the edge once (an append to a compact range).
 */
public final class RootWindow {
  /** Leaf hashes held per chunk; a chunk is freed once the base passes its last leaf. */
  static final int CHUNK = 256;

  private static final int HASH = TreeHash.LENGTH;

  /** The edge at {@link #base}: the complete subtrees' hashes, the largest (leftmost) first. */
  private final List<byte[]> edge = new ArrayList<>();

  /** The leaf hashes after the base, in order, from {@link #head} in the first chunk. */
  private final List<byte[]> leaves = new ArrayList<>();

  private int head;
  private long base;
  private long size;
  private final MessageDigest sha;

  /** An empty window on an empty tree. */
  public RootWindow() {
    try {
      sha = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java platform provides SHA-256", e);
    }
  }

  /** Appends an entry (its leaf hash is SHA-256(0x00 || entry)). */
  public void append(byte[] entry) {
    sha.update((byte) 0x00);
    sha.update(entry);
    byte[] leaf = sha.digest();
    long slot = head + (size - base);
    int chunk = Math.toIntExact(slot / CHUNK);
    if (chunk == leaves.size()) {
      leaves.add(new byte[CHUNK * HASH]);
    }
    System.arraycopy(leaf, 0, leaves.get(chunk), (int) (slot % CHUNK) * HASH, HASH);
    size++;
  }

  /** The number of leaves appended. */
  public long size() {
    return size;
  }

  /** The smallest size whose root this window still gives. */
  public long base() {
    return base;
  }

  /**
   * The root at {@code treeSize} leaves.
   *
   * @throws LogException {@code OUT_OF_RANGE} unless {@code base() <= treeSize <= size()}
   */
  public TreeHash root(long treeSize) throws LogException {
    check(treeSize);
    List<byte[]> e = new ArrayList<>(edge);
    fold(e, base, treeSize);
    if (e.isEmpty()) {
      return TreeHash.empty();
    }
    byte[] root = e.getLast();
    for (int i = e.size() - 2; i >= 0; i--) {
      root = node(e.get(i), root);
    }
    return TreeHash.of(root);
  }

  /**
   * Moves the base to {@code treeSize}, forgetting the leaves before it: roots below it are no
   * longer given.
   *
   * @throws LogException {@code OUT_OF_RANGE} unless {@code base() <= treeSize <= size()}
   */
  public void advanceTo(long treeSize) throws LogException {
    check(treeSize);
    fold(edge, base, treeSize);
    long passed = head + (treeSize - base);
    leaves.subList(0, Math.toIntExact(passed / CHUNK)).clear();
    head = (int) (passed % CHUNK);
    base = treeSize;
    if (base == size) {
      // Nothing after the base: the part-used chunk goes too, and the next leaf starts a new one.
      leaves.clear();
      head = 0;
    }
  }

  /** The bytes this window holds: its edge and its chunks of leaf hashes. */
  public long heldBytes() {
    return (long) edge.size() * HASH + (long) leaves.size() * CHUNK * HASH;
  }

  /** Folds the leaves from {@code from} (at least the base) to {@code to} into {@code e}. */
  private void fold(List<byte[]> e, long from, long to) {
    byte[] leaf = new byte[HASH];
    for (long i = from; i < to; i++) {
      long slot = head + (i - base);
      System.arraycopy(
          leaves.get((int) (slot / CHUNK)), (int) (slot % CHUNK) * HASH, leaf, 0, HASH);
      byte[] carry = leaf.clone();
      for (long n = i; (n & 1) == 1; n >>= 1) {
        carry = node(e.removeLast(), carry);
      }
      e.add(carry);
    }
  }

  private byte[] node(byte[] left, byte[] right) {
    sha.update((byte) 0x01);
    sha.update(left);
    sha.update(right);
    return sha.digest();
  }

  private void check(long treeSize) throws LogException {
    if (treeSize < base || treeSize > size) {
      throw new LogException(
          LogException.Reason.OUT_OF_RANGE,
          "tree size " + treeSize + " is outside " + base + ".." + size);
    }
  }
}
