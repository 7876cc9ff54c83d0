package org.meshjava.receipt.tlog.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.meshjava.receipt.tlog.ConsistencyProof;
import org.meshjava.receipt.tlog.InclusionProof;
import org.meshjava.receipt.tlog.LogException;
import org.meshjava.receipt.tlog.TreeHash;

/**
 * Checks the tree against RFC 9162 §2.1 written out directly: MTH, PATH and SUBPROOF as plain
 * recursions over the leaf list, with their own SHA-256, sharing nothing with {@link MerkleTree}.
 */
class MerkleTreeTest {
  private static final int MAX = 300;

  /** An independent reading of RFC 9162 §2.1, over byte arrays. */
  private static final class Reference {
    private final List<byte[]> entries;
    private final Map<Long, byte[]> memo = new HashMap<>();

    Reference(List<byte[]> entries) {
      this.entries = entries;
    }

    static byte[] sha(int prefix, byte[]... parts) {
      try {
        MessageDigest d = MessageDigest.getInstance("SHA-256");
        d.update((byte) prefix);
        for (byte[] p : parts) {
          d.update(p);
        }
        return d.digest();
      } catch (Exception e) {
        throw new AssertionError(e);
      }
    }

    static int k(int n) {
      int k = 1;
      while (k * 2 < n) {
        k *= 2;
      }
      return k;
    }

    /** MTH(D[lo:hi]); memoised only to keep 45 000 proofs quick. */
    byte[] mth(int lo, int hi) {
      long key = ((long) lo << 32) | hi;
      byte[] cached = memo.get(key);
      if (cached != null) {
        return cached;
      }
      int n = hi - lo;
      byte[] h = n == 1 ? sha(0, entries.get(lo)) : sha(1, mth(lo, lo + k(n)), mth(lo + k(n), hi));
      memo.put(key, h);
      return h;
    }

    List<byte[]> path(int m, int lo, int hi) {
      int n = hi - lo;
      List<byte[]> out = new ArrayList<>();
      if (n == 1) {
        return out;
      }
      int k = k(n);
      if (m < k) {
        out.addAll(path(m, lo, lo + k));
        out.add(mth(lo + k, hi));
      } else {
        out.addAll(path(m - k, lo + k, hi));
        out.add(mth(lo, lo + k));
      }
      return out;
    }

    List<byte[]> subproof(int m, int lo, int hi, boolean b) {
      int n = hi - lo;
      List<byte[]> out = new ArrayList<>();
      if (m == n) {
        if (!b) {
          out.add(mth(lo, hi));
        }
        return out;
      }
      int k = k(n);
      if (m <= k) {
        out.addAll(subproof(m, lo, lo + k, b));
        out.add(mth(lo + k, hi));
      } else {
        out.addAll(subproof(m - k, lo + k, hi, false));
        out.add(mth(lo, lo + k));
      }
      return out;
    }
  }

  private static List<byte[]> entries(int n) {
    List<byte[]> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add(("entry " + i).getBytes(StandardCharsets.UTF_8));
    }
    return out;
  }

  private static List<String> hex(List<TreeHash> hashes) {
    return hashes.stream().map(TreeHash::toString).toList();
  }

  private static List<String> hexBytes(List<byte[]> hashes) {
    return hashes.stream().map(HexFormat.of()::formatHex).toList();
  }

  @Test
  void roots_andInclusionProofs_matchRfc9162_forEverySizeAndLeafUpTo300() throws Exception {
    List<byte[]> entries = entries(MAX);
    Reference ref = new Reference(entries);
    MerkleTree tree = new MerkleTree();
    for (byte[] e : entries) {
      tree.append(e);
    }
    for (int n = 1; n <= MAX; n++) {
      TreeHash root = tree.root(n);
      assertEquals(HexFormat.of().formatHex(ref.mth(0, n)), root.toString(), "root " + n);
      for (int m = 0; m < n; m++) {
        InclusionProof proof = tree.inclusionProof(m, n);
        assertEquals(hexBytes(ref.path(m, 0, n)), hex(proof.path()), "path " + m + " of " + n);
        proof.verify(tree.leafHash(m), root);
      }
    }
  }

  @Test
  void indexOf_findsEveryLeafByItsHash_acrossTableGrowth_andNothingElse() throws Exception {
    MerkleTree tree = new MerkleTree();
    int n = 5000; // the lookup table starts at 64 slots, so it grows several times
    for (byte[] e : entries(n)) {
      tree.append(e);
    }
    for (int i = 0; i < n; i++) {
      assertEquals(OptionalLong.of(i), tree.indexOf(tree.leafHash(i)), "leaf " + i);
    }
    assertEquals(
        OptionalLong.empty(),
        tree.indexOf(TreeHash.leaf("absent".getBytes(StandardCharsets.UTF_8))));
    assertEquals(OptionalLong.empty(), new MerkleTree().indexOf(TreeHash.empty()));
  }

  @Test
  void indexOf_asLeavesArrive_keepsFindingEveryLeaf_whileTheTableGrows() throws Exception {
    MerkleTree tree = new MerkleTree();
    List<byte[]> entries = entries(600);
    for (int i = 0; i < entries.size(); i++) {
      tree.append(entries.get(i));
      // A lookup after every append: the table is built on the first, then kept up and grown.
      assertEquals(OptionalLong.of(i), tree.indexOf(tree.leafHash(i)), "leaf " + i);
      assertEquals(OptionalLong.of(i / 2), tree.indexOf(tree.leafHash(i / 2)), "leaf " + i / 2);
    }
  }

  @Test
  void aTreeRestoredFromItsLevels_isTheTree_atEverySize_andGrowsAsIt() throws Exception {
    List<byte[]> entries = entries(MAX);
    MerkleTree whole = new MerkleTree();
    for (byte[] e : entries) {
      whole.append(e);
    }
    for (int n = 0; n <= 70; n++) {
      byte[] levels = whole.packedLevels(n);
      assertEquals(MerkleTree.packedLength(n), levels.length, "length at " + n);
      MerkleTree restored = MerkleTree.ofLevels(n, levels);
      assertEquals(n, restored.size());
      assertEquals(whole.root(n), restored.root(), "root at " + n);
      for (int m = 0; m < n; m++) {
        assertEquals(whole.leafHash(m), restored.leafHash(m));
        assertEquals(OptionalLong.of(m), restored.indexOf(whole.leafHash(m)));
        assertEquals(
            hex(whole.inclusionProof(m, n).path()), hex(restored.inclusionProof(m, n).path()));
      }
      // Appends continue it exactly as the tree it was saved from.
      for (int k = n; k < n + 40; k++) {
        restored.append(entries.get(k));
        assertEquals(whole.root(k + 1), restored.root(), "root at " + (k + 1) + " from " + n);
      }
      assertEquals(OptionalLong.of(n + 39), restored.indexOf(whole.leafHash(n + 39)));
    }
    assertThrows(IllegalArgumentException.class, () -> MerkleTree.ofLevels(5, new byte[32 * 7]));
    assertThrows(IllegalArgumentException.class, () -> whole.packedLevels(MAX + 1));
  }

  @Test
  void aTreeRestoredFromAViewOfItsLevels_isTheTreeRestoredFromTheBytes() throws Exception {
    MerkleTree whole = new MerkleTree();
    for (byte[] e : entries(37)) {
      whole.append(e);
    }
    byte[] levels = whole.packedLevels(37);
    byte[] around = new byte[levels.length + 10];
    System.arraycopy(levels, 0, around, 5, levels.length);
    java.nio.ByteBuffer view =
        java.nio.ByteBuffer.wrap(around, 5, levels.length).asReadOnlyBuffer();
    MerkleTree restored = MerkleTree.ofLevels(37, view);
    assertEquals(whole.root(), restored.root());
    assertEquals(
        hex(whole.inclusionProof(3, 37).path()), hex(restored.inclusionProof(3, 37).path()));
    assertEquals(5, view.position());
    around[5] ^= 1;
    assertEquals(whole.leafHash(0), restored.leafHash(0));
    assertThrows(
        IllegalArgumentException.class,
        () -> MerkleTree.ofLevels(37, java.nio.ByteBuffer.wrap(levels, 0, levels.length - 32)));
  }

  @Test
  void consistencyProofs_matchRfc9162_forEveryPairOfSizesUpTo300() throws Exception {
    List<byte[]> entries = entries(MAX);
    Reference ref = new Reference(entries);
    MerkleTree tree = new MerkleTree();
    for (byte[] e : entries) {
      tree.append(e);
    }
    TreeHash[] roots = new TreeHash[MAX + 1];
    for (int n = 1; n <= MAX; n++) {
      roots[n] = tree.root(n);
    }
    for (int n = 1; n <= MAX; n++) {
      for (int m = 1; m <= n; m++) {
        ConsistencyProof proof = tree.consistencyProof(m, n);
        List<String> expected = m == n ? List.of() : hexBytes(ref.subproof(m, 0, n, true));
        assertEquals(expected, hex(proof.path()), "proof " + m + " to " + n);
        proof.verify(roots[m], roots[n]);
      }
    }
  }

  @Test
  void inclusionProof_whenAnyHashOrTheLeafIsAltered_isRefused() throws Exception {
    MerkleTree tree = new MerkleTree();
    for (byte[] e : entries(37)) {
      tree.append(e);
    }
    TreeHash root = tree.root();
    for (int m = 0; m < 37; m++) {
      InclusionProof proof = tree.inclusionProof(m, 37);
      TreeHash leaf = tree.leafHash(m);
      LogException wrongLeaf =
          assertThrows(LogException.class, () -> proof.verify(TreeHash.leaf(new byte[1]), root));
      assertEquals(LogException.Reason.BAD_INCLUSION_PROOF, wrongLeaf.reason());
      for (int i = 0; i < proof.path().size(); i++) {
        List<TreeHash> altered = new ArrayList<>(proof.path());
        altered.set(i, TreeHash.leaf(new byte[] {(byte) i}));
        InclusionProof forged = new InclusionProof(m, 37, altered);
        assertThrows(LogException.class, () -> forged.verify(leaf, root));
      }
      if (m + 1 < 37) {
        InclusionProof shifted = new InclusionProof(m + 1, 37, proof.path());
        assertThrows(LogException.class, () -> shifted.verify(leaf, root));
      }
    }
  }

  @Test
  void consistencyProof_fromACutOrRewrittenLog_isRefused() throws Exception {
    MerkleTree honest = new MerkleTree();
    MerkleTree rewritten = new MerkleTree();
    List<byte[]> entries = entries(50);
    for (int i = 0; i < 50; i++) {
      honest.append(entries.get(i));
      rewritten.append(i == 7 ? "edited".getBytes(StandardCharsets.UTF_8) : entries.get(i));
    }
    TreeHash kept = honest.root(20);
    ConsistencyProof proof = rewritten.consistencyProof(20, 50);
    LogException e = assertThrows(LogException.class, () -> proof.verify(kept, rewritten.root()));
    assertEquals(LogException.Reason.BAD_CONSISTENCY_PROOF, e.reason());
    // a cut log (shorter than the kept checkpoint) cannot produce a proof at all
    MerkleTree cut = new MerkleTree();
    for (int i = 0; i < 10; i++) {
      cut.append(entries.get(i));
    }
    assertEquals(
        LogException.Reason.OUT_OF_RANGE,
        assertThrows(LogException.class, () -> cut.consistencyProof(20, 10)).reason());
  }

  @Test
  void emptyTree_hasTheSha256OfNothingAsRoot_andRangesAreChecked() throws Exception {
    MerkleTree tree = new MerkleTree();
    assertEquals(
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", tree.root().toString());
    tree.append(new byte[0]);
    // RFC 6962 test vector: the leaf hash of the empty entry
    assertEquals(
        "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d", tree.root().toString());
    assertEquals(
        LogException.Reason.OUT_OF_RANGE,
        assertThrows(LogException.class, () -> tree.inclusionProof(1, 1)).reason());
    assertEquals(
        LogException.Reason.OUT_OF_RANGE,
        assertThrows(LogException.class, () -> tree.root(2)).reason());
  }
}
