package org.meshjava.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;
import org.meshjava.core.ContentId;

/** The dense list of receipt envelope ids a replay keeps and a snapshot carries. */
class ReceiptIdsTest {
  static ContentId id(long i) {
    return ContentId.ofBytes(ByteBuffer.allocate(8).putLong(i).array());
  }

  @Test
  void anEmptyList_hasNoFirstAndNoIds() {
    ReceiptIds ids = new ReceiptIds();
    assertThat(ids.first()).isEqualTo(-1);
    assertThat(ids.size()).isZero();
    assertThat(ids.get(0)).isEmpty();
    assertThat(ids.get(-1)).isEmpty();
    assertThat(ids.packed()).isEmpty();
    assertThat(ids.copy().first()).isEqualTo(-1);
  }

  @Test
  void ids_areKeptBySequence_acrossChunks() {
    ReceiptIds ids = new ReceiptIds();
    int n = 4096 * 2 + 5;
    for (long s = 10; s < 10 + n; s++) {
      ids.add(s, id(s));
    }
    assertThat(ids.first()).isEqualTo(10);
    assertThat(ids.size()).isEqualTo(n);
    assertThat(ids.get(9)).isEmpty();
    assertThat(ids.get(10)).contains(id(10));
    assertThat(ids.get(10 + 4095)).contains(id(10 + 4095));
    assertThat(ids.get(10 + 4096)).contains(id(10 + 4096));
    assertThat(ids.get(10 + n - 1)).contains(id(10 + n - 1));
    assertThat(ids.get(10 + n)).isEmpty();

    byte[] packed = ids.packed();
    assertThat(packed).hasSize(n * 32);
    assertThat(java.util.Arrays.copyOfRange(packed, 4096 * 32, 4097 * 32))
        .isEqualTo(id(10 + 4096).bytes());
    assertThat(java.util.Arrays.copyOfRange(packed, (n - 1) * 32, n * 32))
        .isEqualTo(id(10 + n - 1).bytes());

    ReceiptIds copy = ids.copy();
    assertThat(copy.first()).isEqualTo(10);
    assertThat(copy.size()).isEqualTo(n);
    assertThat(copy.packed()).isEqualTo(packed);
    assertThat(copy.get(10 + 4100)).contains(id(10 + 4100));
    copy.add(10 + n, id(0));
    assertThat(ids.size()).isEqualTo(n);
    assertThat(copy.get(10 + n)).contains(id(0));
  }

  @Test
  void onlyTheNextSequence_isAdded() {
    ReceiptIds ids = new ReceiptIds();
    ids.add(0, id(0));
    assertThatThrownBy(() -> ids.add(2, id(2))).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> ids.add(0, id(0))).isInstanceOf(IllegalArgumentException.class);
    ids.add(1, id(1));
    assertThat(ids.size()).isEqualTo(2);
  }

  @Test
  void packedIds_areWhole() {
    assertThatThrownBy(() -> ReceiptIds.of(0, new byte[33]))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> ReceiptIds.of(-2, new byte[0]))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> ReceiptIds.of(-1, new byte[32]))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(ReceiptIds.of(-1, new byte[0]).size()).isZero();
    ReceiptIds one = ReceiptIds.of(0, id(0).bytes());
    assertThat(one.get(0)).contains(id(0));
    assertThat(ReceiptIds.of(3, new byte[0]).first()).isEqualTo(3);
  }
}
