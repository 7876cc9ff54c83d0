package org.meshjava.receipt.tlog.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * {@link TreeLevel}: reads pick the base or the tail by position, and writes never reach the base.
 */
class TreeLevelTest {
  private static byte[] hash(int i) {
    byte[] h = new byte[32];
    Arrays.fill(h, (byte) i);
    h[31] = (byte) (i * 7 + 1);
    return h;
  }

  /** A level over hashes 0..baseCount-1, in a buffer with noise on both sides of them. */
  private static TreeLevel over(int baseCount) {
    ByteBuffer packed = ByteBuffer.allocate(5 + baseCount * 32 + 3);
    packed.put(new byte[] {9, 9, 9, 9, 9});
    for (int i = 0; i < baseCount; i++) {
      packed.put(hash(i));
    }
    packed.put(new byte[] {9, 9, 9});
    return TreeLevel.over(packed.asReadOnlyBuffer(), 5, baseCount * 32);
  }

  @Test
  void reads_onBothSidesOfTheBaseTailBoundary_giveTheHashFiledThere() throws Exception {
    for (int baseCount = 0; baseCount <= 20; baseCount++) {
      TreeLevel level = baseCount == 0 ? TreeLevel.empty() : over(baseCount);
      for (int i = baseCount; i < 70; i++) { // past the tail's first 16 and its growth
        level.put(i, hash(i));
      }
      byte[] packed = new byte[70 * 32];
      level.copyTo(70, packed, 0);
      byte[] scratch = new byte[32];
      for (int i = 0; i < 70; i++) {
        byte[] read = new byte[32];
        level.read(i, read);
        assertThat(read).as("hash %d over a base of %d", i, baseCount).isEqualTo(hash(i));
        assertThat(Arrays.copyOfRange(packed, i * 32, i * 32 + 32)).isEqualTo(hash(i));
        assertThat(level.prefix(i)).isEqualTo(ByteBuffer.wrap(hash(i)).getLong());
        assertThat(level.holds(i, hash(i), scratch)).isTrue();
        assertThat(level.holds(i, hash(i + 1), scratch)).isFalse();
        MessageDigest a = MessageDigest.getInstance("SHA-256");
        level.update(a, i, scratch);
        assertThat(a.digest()).isEqualTo(MessageDigest.getInstance("SHA-256").digest(hash(i)));
      }
      byte[] some = new byte[3 * 32 + 4];
      level.copyTo(3, some, 4);
      assertThat(Arrays.copyOfRange(some, 4 + 64, 4 + 96)).isEqualTo(hash(2));
    }
  }

  @Test
  void put_intoTheBase_isRefused() {
    TreeLevel level = over(4);
    assertThatThrownBy(() -> level.put(3, hash(0))).isInstanceOf(IllegalStateException.class);
    level.put(4, hash(4));
    byte[] read = new byte[32];
    level.read(3, read);
    assertThat(read).isEqualTo(hash(3));
  }

  @Test
  void reads_acrossTailChunks_overBasesAroundAChunk_giveTheHashFiledThere() {
    int c = TreeLevel.CHUNK;
    for (int baseCount : new int[] {0, 1, c - 1, c, c + 1, 2 * c + 5}) {
      TreeLevel level = baseCount == 0 ? TreeLevel.empty() : over(baseCount);
      int end = 3 * c + 7;
      for (int i = baseCount; i < end; i++) {
        level.put(i, hash(i));
      }
      byte[] packed = new byte[end * 32];
      level.copyTo(end, packed, 0);
      byte[] read = new byte[32];
      for (int i = 0; i < end; i++) {
        level.read(i, read);
        assertThat(read).as("hash %d over a base of %d", i, baseCount).isEqualTo(hash(i));
        assertThat(Arrays.copyOfRange(packed, i * 32, i * 32 + 32)).isEqualTo(hash(i));
      }
    }
  }

  @Test
  void tail_holdsAtMostOneChunkMoreThanItsHashes_justPastAPowerOfTwo() {
    // A tail grown by doubling holds twice its hashes here; chunks hold what they must.
    int hashes = (1 << 16) + 1;
    TreeLevel level = TreeLevel.empty();
    for (int i = 0; i < hashes; i++) {
      level.put(i, hash(i));
    }
    assertThat(level.tailBytes())
        .isGreaterThanOrEqualTo(hashes * 32L)
        .isLessThanOrEqualTo((hashes + TreeLevel.CHUNK) * 32L);
  }

  @Test
  void tail_overABase_allocatesNoChunkInsideTheBase() {
    int c = TreeLevel.CHUNK;
    TreeLevel level = over(3 * c + 1);
    level.put(3L * c + 1, hash(1));
    assertThat(level.tailBytes()).isEqualTo(c * 32L);
  }
}
