package org.meshjava.receipt.tlog.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.meshjava.receipt.tlog.LogException;
import org.meshjava.receipt.tlog.TreeHash;

/**
 * {@link MerkleTree#overLevels}: a tree restored over saved levels, read in place, is the tree it
 * was saved from, before and after appends, at sizes up to 300 (every one under {@code -Pslow}) and
 * a few larger ones; it reads the saved bytes where they lie (unlike {@link MerkleTree#ofLevels},
 * which copies them), never writes them, and leaves the view it was given as it was.
 */
class MerkleTreeOverLevelsTest {
  /** Where the saved levels start inside the larger array a view is taken of. */
  private static final int OFFSET = 13;

  /** Bytes after the saved levels, inside the array but outside the view. */
  private static final int TRAILER = 29;

  private static byte[] entry(long i) {
    return ("entry " + i).getBytes(StandardCharsets.UTF_8);
  }

  private static MerkleTree builtByAppends(long size) {
    MerkleTree tree = new MerkleTree();
    for (long i = 0; i < size; i++) {
      tree.append(entry(i));
    }
    return tree;
  }

  /**
   * {@code packed} at {@link #OFFSET} in a larger array whose other bytes are noise, so that a read
   * outside the view shows.
   */
  private static byte[] inside(byte[] packed) {
    byte[] around = new byte[OFFSET + packed.length + TRAILER];
    new Random(packed.length).nextBytes(around);
    System.arraycopy(packed, 0, around, OFFSET, packed.length);
    return around;
  }

  /**
   * A read-only view of the saved levels in {@code around}: position OFFSET, limit at their end.
   */
  private static ByteBuffer view(byte[] around) {
    return ByteBuffer.wrap(around, OFFSET, around.length - OFFSET - TRAILER).asReadOnlyBuffer();
  }

  /**
   * The sizes the default suite restores at: every size up to 40 (each shape of the top levels, odd
   * and even counts on the first five), each power of two up to 256 with its neighbours (a level
   * that has just filled or just begun), 300, 511 and 512, and sizes past the 4096-hash chunks of a
   * level. {@code -Pslow} adds every other size up to 300 ({@link #everyOtherSize_upTo300}), about
   * 3 s of a two-core CI run.
   */
  static LongStream sizes() {
    return LongStream.concat(
        LongStream.rangeClosed(0, 40),
        LongStream.of(63, 64, 65, 127, 128, 129, 255, 256, 257, 300, 511, 512, 1000, 4097, 8193));
  }

  /** The sizes up to 300 that {@link #sizes} leaves out. */
  static LongStream everyOtherSize() {
    Set<Long> sampled = sizes().boxed().collect(Collectors.toSet());
    return LongStream.rangeClosed(0, 300).filter(n -> !sampled.contains(n));
  }

  @ParameterizedTest(name = "size {0}")
  @MethodSource("sizes")
  void overLevels_thenAppends_equalsATreeBuiltByAppends(long size) throws Exception {
    overLevels_thenAppends_isTheTreeBuiltByAppends(size);
  }

  @ParameterizedTest(name = "size {0}")
  @MethodSource("everyOtherSize")
  @Tag("slow")
  void everyOtherSize_upTo300(long size) throws Exception {
    overLevels_thenAppends_isTheTreeBuiltByAppends(size);
  }

  private static void overLevels_thenAppends_isTheTreeBuiltByAppends(long size) throws Exception {
    MerkleTree original = builtByAppends(size);
    byte[] packed = original.packedLevels(size);
    MerkleTree restored = MerkleTree.overLevels(size, view(inside(packed)));

    assertSameTree(restored, original, size);

    // Appends continue it exactly as the original: past every level's base, onto new levels.
    long grown = 2 * size + 5;
    for (long i = size; i < grown; i++) {
      assertThat(restored.append(entry(i))).isEqualTo(original.append(entry(i)));
      assertThat(restored.root()).as("root at %d", i + 1).isEqualTo(original.root());
    }
    assertSameTree(restored, original, size);
    assertThat(restored.packedLevels(size)).isEqualTo(packed);
  }

  @Test
  void overLevels_appendingLeafHashes_equalsATreeBuiltByAppends() throws Exception {
    MerkleTree original = builtByAppends(77);
    MerkleTree restored = MerkleTree.overLevels(77, view(inside(original.packedLevels(77))));
    for (long i = 77; i < 200; i++) {
      TreeHash leaf = TreeHash.leaf(entry(i));
      assertThat(restored.appendLeafHash(leaf)).isEqualTo(original.appendLeafHash(leaf));
    }
    assertSameTree(restored, original, 77);
  }

  /**
   * The restored tree answers as the original does, at its current size: size, roots at every size,
   * every leaf hash, every inclusion proof at the current size and at {@code savedSize},
   * consistency proofs between sizes sampled around the powers of two and the saved and current
   * sizes, every leaf by its hash and a missing one, and the packed levels at every size.
   */
  private static void assertSameTree(MerkleTree restored, MerkleTree original, long savedSize)
      throws LogException {
    long size = original.size();
    assertThat(restored.size()).isEqualTo(size);
    assertThat(restored.root()).isEqualTo(original.root());
    for (long n = 0; n <= size; n++) {
      assertThat(restored.root(n)).as("root(%d)", n).isEqualTo(original.root(n));
    }
    for (long m = 0; m < size; m++) {
      TreeHash leaf = original.leafHash(m);
      assertThat(restored.leafHash(m)).as("leaf %d", m).isEqualTo(leaf);
      assertThat(restored.inclusionProof(m, size))
          .as("inclusion of %d in %d", m, size)
          .isEqualTo(original.inclusionProof(m, size));
      if (m < savedSize) {
        assertThat(restored.inclusionProof(m, savedSize))
            .as("inclusion of %d in %d", m, savedSize)
            .isEqualTo(original.inclusionProof(m, savedSize));
      }
      assertThat(restored.indexOf(leaf)).as("indexOf leaf %d", m).isEqualTo(OptionalLong.of(m));
    }
    assertThat(restored.indexOf(TreeHash.leaf("absent".getBytes(StandardCharsets.UTF_8))))
        .isEmpty();
    List<Long> sample = sampleSizes(savedSize, size);
    for (long from : sample) {
      for (long to : sample) {
        if (from <= to) {
          assertThat(restored.consistencyProof(from, to))
              .as("consistency %d to %d", from, to)
              .isEqualTo(original.consistencyProof(from, to));
        }
      }
    }
    for (long n : sample) {
      assertThat(restored.packedLevels(n))
          .as("packed levels at %d", n)
          .isEqualTo(original.packedLevels(n));
    }
    assertThat(restored.packedLevels(0)).isEmpty();
  }

  /** Sizes 1..size around the small ones, the powers of two, the saved size and the current one. */
  private static List<Long> sampleSizes(long savedSize, long size) {
    TreeSet<Long> out = new TreeSet<>(List.of(1L, 2L, 3L, 5L, 7L));
    for (long p = 4; p <= size * 2; p <<= 1) {
      out.addAll(List.of(p - 1, p, p + 1));
    }
    for (long around : List.of(savedSize, size / 2, size)) {
      out.addAll(List.of(around - 1, around, around + 1));
    }
    out.removeIf(n -> n < 1 || n > size);
    return new ArrayList<>(out);
  }

  /**
   * Saved sizes around the 4096-hash chunks of a level (one short, exact, one past, on one and two
   * chunks), and small ones. {@code -Pslow} adds six drawn at random ({@link #randomAdoptedSizes}),
   * about 2 s of a two-core CI run.
   */
  static LongStream adoptedSizes() {
    return LongStream.of(1, 2, 7, 300, 4095, 4096, 4097, 8192, 8193, 9000);
  }

  /** Six saved sizes below 12 000 from a fixed seed. */
  static LongStream randomAdoptedSizes() {
    return new Random(42).longs(6, 1, 12_000);
  }

  @ParameterizedTest(name = "saved at {0}")
  @MethodSource("adoptedSizes")
  void adoptLevels_ofItsOwnSavedLevels_isTheSameTree_withTheCoveredChunksDropped(long saved)
      throws Exception {
    adoptLevels_ofItsOwnSavedLevels_isTheSameTree(saved);
  }

  @ParameterizedTest(name = "saved at {0}")
  @MethodSource("randomAdoptedSizes")
  @Tag("slow")
  void adoptLevels_atRandomSavedSizes(long saved) throws Exception {
    adoptLevels_ofItsOwnSavedLevels_isTheSameTree(saved);
  }

  private static void adoptLevels_ofItsOwnSavedLevels_isTheSameTree(long saved) throws Exception {
    long size = saved + 37;
    MerkleTree original = builtByAppends(size);
    MerkleTree kept = builtByAppends(size);
    long heap = kept.heapBytes();
    MerkleTree back = MerkleTree.overLevels(saved, view(inside(original.packedLevels(saved))));

    assertThat(kept.adoptLevels(back)).isTrue();

    // Every level's chunks wholly below its saved count are gone; level 0's alone are that many.
    long leafChunks = saved / TreeLevel.CHUNK;
    assertThat(kept.heapBytes()).isLessThanOrEqualTo(heap - leafChunks * TreeLevel.CHUNK * 32);
    assertSameTree(kept, original, saved);
    for (long i = size; i < 2 * size + 5; i++) {
      assertThat(kept.append(entry(i))).isEqualTo(original.append(entry(i)));
    }
    assertSameTree(kept, original, saved);
  }

  @Test
  void adoptLevels_ofAnotherTree_aLargerOne_oneGrownSince_orOneShorterThanItsBases_changesNothing()
      throws Exception {
    MerkleTree kept = builtByAppends(100);
    MerkleTree other = new MerkleTree();
    for (int i = 0; i < 50; i++) {
      other.append(entry(1000 + i));
    }
    MerkleTree grown = MerkleTree.overLevels(50, view(inside(kept.packedLevels(50))));
    grown.append(entry(50));

    assertThat(kept.adoptLevels(MerkleTree.overLevels(50, view(inside(other.packedLevels(50))))))
        .as("another tree's levels")
        .isFalse();
    assertThat(kept.adoptLevels(builtByAppends(101))).as("a larger tree").isFalse();
    assertThat(kept.adoptLevels(grown)).as("levels with appends after them").isFalse();
    assertThat(kept.adoptLevels(new MerkleTree())).as("an empty tree").isFalse();
    assertSameTree(kept, builtByAppends(100), 100);

    MerkleTree restored = MerkleTree.overLevels(80, view(inside(kept.packedLevels(80))));
    assertThat(restored.adoptLevels(MerkleTree.overLevels(50, view(inside(kept.packedLevels(50))))))
        .as("fewer leaves than its bases hold")
        .isFalse();
    assertSameTree(restored, MerkleTree.overLevels(80, view(inside(kept.packedLevels(80)))), 80);
  }

  @Test
  void overLevels_readsTheBytesInPlace_whileOfLevelsCopiesThem() throws Exception {
    MerkleTree original = builtByAppends(64);
    byte[] packed = original.packedLevels(64);
    byte[] around = inside(packed);
    MerkleTree over = MerkleTree.overLevels(64, view(around));
    MerkleTree copied = MerkleTree.ofLevels(64, view(around));
    MerkleTree copiedFromArray = MerkleTree.ofLevels(64, packed);
    TreeHash leaf0 = original.leafHash(0);
    TreeHash root = original.root();

    around[OFFSET] ^= 1; // the first byte of leaf 0, on level 0
    around[OFFSET + packed.length - 1] ^= 1; // the last byte of the top level: the root of 64

    byte[] changedLeaf0 = leaf0.bytes();
    changedLeaf0[0] ^= 1;
    assertThat(over.leafHash(0)).isEqualTo(TreeHash.of(changedLeaf0));
    assertThat(over.root()).isNotEqualTo(root);
    assertThat(copied.leafHash(0)).isEqualTo(leaf0);
    assertThat(copied.root()).isEqualTo(root);
    packed[0] ^= 1;
    assertThat(copiedFromArray.leafHash(0)).isEqualTo(leaf0);
  }

  @Test
  void overLevels_leavesTheViewsPositionAndLimit_andNeverWritesTheBytes() throws Exception {
    MerkleTree original = builtByAppends(100);
    byte[] around = inside(original.packedLevels(100));
    byte[] before = around.clone();
    // A writable view: the tree must not write into it even where it could.
    ByteBuffer view = ByteBuffer.wrap(around, OFFSET, around.length - OFFSET - TRAILER);
    int position = view.position();
    int limit = view.limit();

    MerkleTree restored = MerkleTree.overLevels(100, view);
    assertThat(view.position()).isEqualTo(position);
    assertThat(view.limit()).isEqualTo(limit);

    restored.indexOf(original.leafHash(3)); // builds the lookup table from the base
    for (long i = 100; i < 700; i++) {
      restored.append(entry(i));
      original.append(entry(i));
    }
    assertThat(restored.root()).isEqualTo(original.root());
    assertThat(restored.inclusionProof(99, 700)).isEqualTo(original.inclusionProof(99, 700));
    assertThat(restored.packedLevels(700)).isEqualTo(original.packedLevels(700));
    assertThat(around).isEqualTo(before);
    assertThat(view.position()).isEqualTo(position);
    assertThat(view.limit()).isEqualTo(limit);
  }

  @Test
  void ofLevels_fromAView_leavesItsPositionAndLimit() {
    byte[] around = inside(builtByAppends(9).packedLevels(9));
    ByteBuffer view = view(around);
    MerkleTree.ofLevels(9, view);
    assertThat(view.position()).isEqualTo(OFFSET);
    assertThat(view.limit()).isEqualTo(around.length - TRAILER);
  }

  @Test
  void overLevels_ofTheWrongLength_isRefused() {
    byte[] packed = builtByAppends(37).packedLevels(37);
    assertThatThrownBy(
            () -> MerkleTree.overLevels(37, ByteBuffer.wrap(packed, 0, packed.length - 32)))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> MerkleTree.overLevels(36, ByteBuffer.wrap(packed)))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> MerkleTree.overLevels(0, ByteBuffer.wrap(new byte[32])))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> MerkleTree.overLevels(-1, ByteBuffer.allocate(0)))
        .isInstanceOf(IllegalArgumentException.class);
    ByteBuffer tooLong = ByteBuffer.allocate(packed.length + 1);
    assertThatThrownBy(() -> MerkleTree.overLevels(37, tooLong))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(tooLong.position()).isZero();
  }

  @Test
  void overLevels_ofAReadOnlyMappedFile_isTheTree_andGrowsAsIt(@TempDir Path dir)
      throws IOException, LogException {
    MerkleTree original = builtByAppends(1234);
    byte[] packed = original.packedLevels(1234);
    Path file = dir.resolve("levels");
    Files.write(file, inside(packed));
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
      MappedByteBuffer mapped = channel.map(FileChannel.MapMode.READ_ONLY, 0, channel.size());
      mapped.position(OFFSET).limit(OFFSET + packed.length);
      MerkleTree restored = MerkleTree.overLevels(1234, mapped);
      assertThat(mapped.position()).isEqualTo(OFFSET);
      assertThat(mapped.limit()).isEqualTo(OFFSET + packed.length);
      assertSameTree(restored, original, 1234);
      for (long i = 1234; i < 3000; i++) {
        restored.append(entry(i));
        original.append(entry(i));
      }
      assertSameTree(restored, original, 1234);
    }
  }

  /**
   * A tree restored over saved levels adopts the levels of a later save of the same size (a
   * snapshot taken again with no receipt between): its bases are exactly as long as the new ones.
   */
  @Test
  void adoptLevels_ofLevelsAsLongAsItsOwnBases_isTheSameTree() throws Exception {
    MerkleTree original = builtByAppends(5000);
    MerkleTree restored = MerkleTree.overLevels(5000, view(inside(original.packedLevels(5000))));

    assertThat(
            restored.adoptLevels(
                MerkleTree.overLevels(5000, view(inside(original.packedLevels(5000))))))
        .isTrue();
    assertSameTree(restored, original, 5000);
  }

  /** The lookup table by leaf hash, built on the first lookup, is part of the heap a tree keeps. */
  @Test
  void heapBytes_countTheLookupTable_onceALookupHasBuiltIt() throws Exception {
    MerkleTree tree = builtByAppends(10);
    long before = tree.heapBytes();

    assertThat(tree.indexOf(tree.leafHash(3))).hasValue(3);

    assertThat(tree.heapBytes() - before).as("64 slots of 4 bytes").isEqualTo(256);
  }
}
