package org.meshjava.receipt.tlog;

import java.util.ArrayList;
import java.util.List;

/**
 * The hashes showing that the tree of size {@code toSize} extends the tree of size {@code fromSize}
 * (RFC 9162 §2.1.4): every leaf of the older tree is in the newer one, unchanged and in place. A
 * proof proves nothing until {@link #verify} accepts it against two roots the caller trusts.
 * Immutable and thread-safe.
 *
 * @param fromSize the older tree's size, at least 1
 * @param toSize the newer tree's size, at least {@code fromSize}
 * @param path the proof hashes (empty when the sizes are equal)
 */
public record ConsistencyProof(long fromSize, long toSize, List<TreeHash> path) {
  /**
   * Validates the sizes and copies the path.
   *
   * @throws IllegalArgumentException if {@code fromSize} is not in {@code [1, toSize]}, or the path
   *     holds more than 128 hashes
   */
  public ConsistencyProof {
    if (fromSize <= 0 || fromSize > toSize) {
      throw new IllegalArgumentException(
          "no consistency proof from size " + fromSize + " to size " + toSize);
    }
    if (path.size() > 128) {
      throw new IllegalArgumentException("a consistency proof has at most 128 hashes");
    }
    path = List.copyOf(path);
  }

  /**
   * Verifies that {@code toRoot}'s tree extends {@code fromRoot}'s, by RFC 9162 §2.1.4.2.
   *
   * @throws LogException {@code BAD_CONSISTENCY_PROOF} when it does not
   */
  public void verify(TreeHash fromRoot, TreeHash toRoot) throws LogException {
    if (fromSize == toSize) {
      if (!path.isEmpty()) {
        throw bad("a proof between equal sizes is empty");
      }
      if (!fromRoot.equals(toRoot)) {
        throw bad("equal sizes with different roots");
      }
      return;
    }
    if (path.isEmpty()) {
      throw bad("the proof is empty");
    }
    List<TreeHash> c = new ArrayList<>(path.size() + 1);
    if (Long.bitCount(fromSize) == 1) {
      c.add(fromRoot);
    }
    c.addAll(path);
    ProofWalk walk = new ProofWalk(fromSize - 1, toSize - 1);
    walk.climbRightChildren();
    TreeHash fr = c.get(0);
    TreeHash sr = c.get(0);
    for (TreeHash h : c.subList(1, c.size())) {
      if (walk.atRoot()) {
        throw bad("the proof is longer than the tree is deep");
      }
      if (walk.nextIsLeft()) {
        fr = TreeHash.node(h, fr);
        sr = TreeHash.node(h, sr);
      } else {
        sr = TreeHash.node(sr, h);
      }
    }
    if (!walk.atRoot()) {
      throw bad("the proof is shorter than the tree is deep");
    }
    if (!fr.equals(fromRoot)) {
      throw bad("the proof does not lead to the older root");
    }
    if (!sr.equals(toRoot)) {
      throw bad("the proof does not lead to the newer root");
    }
  }

  private LogException bad(String detail) {
    return new LogException(
        LogException.Reason.BAD_CONSISTENCY_PROOF,
        "from " + fromSize + " to " + toSize + ": " + detail);
  }
}
