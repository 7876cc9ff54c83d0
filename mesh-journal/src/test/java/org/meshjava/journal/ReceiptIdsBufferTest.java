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

  @Test
  void idsFromAView_acrossChunks_areTheIdsFromTheBytes() {
    ReceiptIds original = ids(3, 4096 + 9);
    byte[] packed = original.packed();
    byte[] around = new byte[packed.length + 64];
    System.arraycopy(packed, 0, around, 32, packed.length);
    ByteBuffer view = ByteBuffer.wrap(around, 32, packed.length).asReadOnlyBuffer();
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
}
