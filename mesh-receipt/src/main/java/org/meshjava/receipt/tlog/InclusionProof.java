package org.meshjava.receipt.tlog;

import java.util.List;
import org.meshjava.core.ContentId;

/**
 * The audit path showing that leaf {@code leafIndex} is in the tree of size {@code treeSize} (RFC
 * 9162 §2.1.3), ordered from the leaf upwards. A proof proves nothing until {@link #verify} accepts
 * it against a root the caller trusts (one from a checkpoint it opened). Immutable and thread-safe.
 *
 * @param leafIndex the leaf's zero-based index
 * @param treeSize the size of the tree the proof is against
 * @param path the sibling hashes from the leaf up to the root
 */
public record InclusionProof(long leafIndex, long treeSize, List<TreeHash> path) {
  /**
   * Validates the indices and copies the path.
   *
   * @throws IllegalArgumentException if {@code leafIndex} is not in {@code [0, treeSize)}, or the
   *     path holds more than 64 hashes
   */
  public InclusionProof {
    if (leafIndex < 0 || leafIndex >= treeSize) {
      throw new IllegalArgumentException(
          "leaf index " + leafIndex + " is outside a tree of " + treeSize);
    }
    if (path.size() > 64) {
      throw new IllegalArgumentException("an audit path has at most 64 hashes");
    }
    path = List.copyOf(path);
  }

  /**
   * Returns the leaf hash of the receipt whose envelope has content id {@code envelopeId}, what
   * {@link #verify} takes to prove that receipt is in a steward's log: the log's leaf entry is the
   * 32 bytes of the envelope's id, so this is SHA-256(0x00 || id bytes).
   */
  public static TreeHash leafHash(ContentId envelopeId) {
    return TreeHash.leaf(envelopeId.bytes());
  }

  /**
   * Verifies that {@code leafHash} is leaf {@code leafIndex} of the tree whose root is {@code
   * root}, by RFC 9162 §2.1.3.2.
   *
   * @throws LogException {@code BAD_INCLUSION_PROOF} when it is not
   */
  public void verify(TreeHash leafHash, TreeHash root) throws LogException {
    ProofWalk walk = new ProofWalk(leafIndex, treeSize - 1);
    TreeHash r = leafHash;
    for (TreeHash p : path) {
      if (walk.atRoot()) {
        throw bad("the path is longer than the tree is deep");
      }
      r = walk.nextIsLeft() ? TreeHash.node(p, r) : TreeHash.node(r, p);
    }
    if (!walk.atRoot()) {
      throw bad("the path is shorter than the tree is deep");
    }
    if (!r.equals(root)) {
      throw bad("the path leads to " + r + ", not to the root " + root);
    }
  }

  private LogException bad(String detail) {
    return new LogException(
        LogException.Reason.BAD_INCLUSION_PROOF,
        "leaf " + leafIndex + " in tree of " + treeSize + ": " + detail);
  }
}
