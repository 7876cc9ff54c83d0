package org.meshjava.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.meshjava.journal.ReceiptIdsTest.id;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/**
 * Receipt ids read from a view of a snapshot's section are the ids read from those bytes as an
 * array, and a copy of a list is a list of its own.
 */
class ReceiptIdsBufferTest {
  private static ReceiptIds ids(long first, int n) {
    ReceiptIds ids = new ReceiptIds();
    for (long s = first; s < first + n; s++) {
      ids.add(s, id(s));
    }
    return ids;
  }

  /**
   * {@code packed} copied into {@code around} at {@code at}, as a read-only view of it there: a
   * section inside a larger buffer, as in a snapshot body.
   */
  private static ByteBuffer placed(byte[] packed, byte[] around, int at) {
    System.arraycopy(packed, 0, around, at, packed.length);
    return ByteBuffer.wrap(around, at, packed.length).asReadOnlyBuffer();
  }

  @Test
  void idsFromAView_acrossChunks_areTheIdsFromTheBytes() {
    ReceiptIds original = ids(3, 4096 + 9);
    byte[] packed = original.packed();
    byte[] around = new byte[packed.length + 64];
    ByteBuffer view = placed(packed, around, 32);
    ReceiptIds back = ReceiptIds.of(3, view);
    assertThat(back.first()).isEqualTo(3);
    assertThat(back.size()).isEqualTo(original.size());
    assertThat(back.packed()).isEqualTo(packed);
    assertThat(back.get(3 + 4096)).contains(id(3 + 4096));
    assertThat(view.position()).isEqualTo(32);
    around[32] ^= 1;
    assertThat(back.get(3)).contains(id(3));
    assertThatThrownBy(() -> ReceiptIds.of(3, ByteBuffer.wrap(new byte[33])))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> ReceiptIds.of(-1, ByteBuffer.wrap(new byte[32])))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void aCopy_isIndependentOfTheOriginal() {
    ReceiptIds original = ids(0, 4096);
    ReceiptIds copy = original.copy();
    copy.add(4096, id(4096));
    assertThat(original.size()).isEqualTo(4096);
    assertThat(original.get(4096)).isEmpty();
    assertThat(copy.get(4096)).contains(id(4096));
    original.add(4096, id(99));
    assertThat(copy.get(4096)).contains(id(4096));
    assertThat(copy.packed()).startsWith(ids(0, 4096).packed());
  }

  @Test
  void idsOverAView_areReadInPlace_andAppendsAreKeptApart() {
    ReceiptIds original = ids(3, 4096 + 9);
    byte[] packed = original.packed();
    byte[] around = new byte[packed.length + 64];
    ByteBuffer view = placed(packed, around, 32);
    byte[] before = around.clone();
    ReceiptIds over = ReceiptIds.over(3, view);
    assertThat(over.packed()).isEqualTo(packed);
    assertThat(over.get(3 + 4096 + 8)).contains(id(3 + 4096 + 8));
    assertThat(over.get(3 + 4096 + 9)).isEmpty();
    assertThat(view.position()).isEqualTo(32);
    // Appends, to it and to a copy, go beside the view and never into it.
    ReceiptIds copy = over.copy();
    for (long s = 3 + 4096 + 9; s < 3 + 2 * 4096 + 20; s++) {
      over.add(s, id(s));
      copy.add(s, id(s + 1));
    }
    assertThat(around).isEqualTo(before);
    assertThat(over.packed()).isEqualTo(ids(3, 2 * 4096 + 20).packed());
    assertThat(copy.get(3 + 4096 + 9)).contains(id(3 + 4096 + 10));
    assertThat(over.get(3 + 4096 + 9)).contains(id(3 + 4096 + 9));
    // Read where they lie: a change to the bytes shows (the caller promises none).
    around[32] ^= 1;
    assertThat(over.get(3)).isNotEqualTo(java.util.Optional.of(id(3)));
    assertThatThrownBy(() -> ReceiptIds.over(3, ByteBuffer.wrap(new byte[33])))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void aCopy_sharesNoChunkThatEitherWillWrite() {
    // Full chunks are shared, the partly filled last one is not: appends to each stay their own.
    for (int n : new int[] {0, 1, 4095, 4096, 4097, 3 * 4096}) {
      ReceiptIds original = ids(0, n);
      ReceiptIds copy = original.copy();
      for (long s = n; s < n + 4100; s++) {
        original.add(s, id(s));
        copy.add(s, id(s + 7));
      }
      for (long s = n; s < n + 4100; s++) {
        assertThat(original.get(s)).as("n=%d s=%d", n, s).contains(id(s));
        assertThat(copy.get(s)).as("n=%d s=%d", n, s).contains(id(s + 7));
      }
      assertThat(java.util.Arrays.copyOf(copy.packed(), n * 32)).isEqualTo(ids(0, n).packed());
    }
  }
}
