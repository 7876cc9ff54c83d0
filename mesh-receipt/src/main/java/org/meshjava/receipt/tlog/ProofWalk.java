package org.meshjava.receipt.tlog;

/**
 * The walk up the tree by which both RFC 9162 proofs are verified (§2.1.3.2 for inclusion, §2.1.4.2
 * for consistency): {@code fn} is the index of the node the walk is at and {@code sn} that of the
 * last node, both at the current level. Each proof hash is the node's sibling, on its left or on
 * its right, and hashing it in moves the walk up a level. One walk per verification; not
 * thread-safe.
 */
final class ProofWalk {
  private long fn;
  private long sn;

  /** A walk from node {@code fn} of a level whose last node is {@code sn}. */
  ProofWalk(long fn, long sn) {
    this.fn = fn;
    this.sn = sn;
  }

  /** Whether the walk has reached the root, so that a further proof hash is one too many. */
  boolean atRoot() {
    return sn == 0;
  }

  /**
   * Climbs while the node is a right child: the consistency proof starts at the first ancestor of
   * the older tree's last leaf that is a left child (§2.1.4.2, step 4).
   */
  void climbRightChildren() {
    while ((fn & 1) == 1) {
      up();
    }
  }

  /**
   * Places the next proof hash and moves up past it: true when it is the node's left sibling (the
   * node is a right child, or the last of its level; the levels where it has no sibling are climbed
   * first), false when it is the right sibling.
   */
  boolean nextIsLeft() {
    boolean left = (fn & 1) == 1 || fn == sn;
    if (left) {
      while ((fn & 1) == 0 && fn != 0) {
        up();
      }
    }
    up();
    return left;
  }

  private void up() {
    fn >>= 1;
    sn >>= 1;
  }
}
