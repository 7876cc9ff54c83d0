package org.meshjava.receipt.tlog.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Random;
import org.junit.jupiter.api.Test;
import org.meshjava.receipt.tlog.LogException;
import org.meshjava.receipt.tlog.TreeHash;

/**
 * The roots a {@link RootWindow} gives are the tree's, at every size from its base on, however the
 * base has moved; and what it holds is the leaves after its base, not the tree.
 */
class RootWindowTest {
  private static byte[] entry(long i) {
    return new byte[] {(byte) i, (byte) (i >> 8), 7};
  }

  @Test
  void everyRootFromTheBase_isTheTreesRoot_asTheBaseMoves() throws Exception {
    Random random = new Random(45);
    MerkleTree tree = new MerkleTree();
    RootWindow window = new RootWindow();
    assertThat(window.root(0)).isEqualTo(TreeHash.empty());
    // Past a chunk's worth of leaves more than once, with bases inside and on chunk boundaries.
    for (long i = 0; i < 2 * RootWindow.CHUNK + 40; i++) {
      tree.append(entry(i));
      window.append(entry(i));
      if (random.nextInt(30) == 0) {
        assertRootsAsTheTrees(window, tree, random);
        long to = window.base() + random.nextLong(window.size() - window.base() + 1);
        window.advanceTo(to);
        assertThat(window.base()).isEqualTo(to);
      }
    }
    assertRootsAsTheTrees(window, tree, random);
  }

  /** The window's roots at its base, its size and some sizes between are the tree's. */
  private static void assertRootsAsTheTrees(RootWindow window, MerkleTree tree, Random random)
      throws Exception {
    long span = window.size() - window.base();
    for (int k = 0; k < 8; k++) {
      long s =
          k == 0
              ? window.base()
              : k == 1 ? window.size() : window.base() + random.nextLong(span + 1);
      assertThat(window.root(s)).as("root at %d of %d", s, window.size()).isEqualTo(tree.root(s));
    }
  }

  @Test
  void aSizeOutsideTheWindow_isOutOfRange() throws Exception {
    RootWindow window = new RootWindow();
    for (int i = 0; i < 5; i++) {
      window.append(entry(i));
    }
    window.advanceTo(3);
    for (long bad : new long[] {2, 6, -1}) {
      assertThatThrownBy(() -> window.root(bad))
          .isInstanceOfSatisfying(
              LogException.class,
              e -> assertThat(e.reason()).isEqualTo(LogException.Reason.OUT_OF_RANGE));
    }
    assertThatThrownBy(() -> window.advanceTo(2)).isInstanceOf(LogException.class);
  }

  @Test
  void whatItHolds_isTheLeavesAfterItsBase_notTheTree() throws Exception {
    RootWindow window = new RootWindow();
    long most = 0;
    for (long i = 1; i <= 4 * RootWindow.CHUNK; i++) {
      window.append(entry(i));
      if (i % 100 == 0) {
        window.advanceTo(i);
        // The edge alone: one hash per set bit of the size.
        assertThat(window.heldBytes()).isEqualTo((long) Long.bitCount(i) * TreeHash.LENGTH);
      }
      most = Math.max(most, window.heldBytes());
    }
    assertThat(most).isLessThanOrEqualTo((2L * RootWindow.CHUNK + 64) * TreeHash.LENGTH);
  }
}
