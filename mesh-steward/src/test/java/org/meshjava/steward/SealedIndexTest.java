package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.meshjava.core.ContentId;
import org.meshjava.journal.ReceiptIds;

class SealedIndexTest {
  private static ContentId id(long i) {
    return ContentId.ofBytes(Long.toString(i).getBytes(java.nio.charset.StandardCharsets.US_ASCII));
  }

  private static ReceiptIds ids(long first, int n) {
    ReceiptIds ids = new ReceiptIds();
    for (long s = first; s < first + n; s++) {
      ids.add(s, id(s));
    }
    return ids;
  }

  @Test
  void holdsIdsPutOutOfOrder_acrossChunks_andNothingElse() {
    SealedIndex index = new SealedIndex(ids(7, 1), 8);
    for (long s = 10_000; s >= 8; s--) {
      index.put(s, id(s));
    }
    assertThat(index.get(7)).contains(id(7));
    assertThat(index.get(4_103)).contains(id(4_103));
    assertThat(index.get(10_000)).contains(id(10_000));
    assertThat(index.get(6)).isEmpty();
    assertThat(index.get(10_001)).isEmpty();
    assertThat(index.get(1_000_000)).isEmpty();
  }

  @Test
  void recoveredReceipts_areAllHeld() {
    SealedIndex index = new SealedIndex(ids(0, 5_000), 5_000);
    for (long s = 0; s < 5_000; s++) {
      assertThat(index.get(s)).contains(id(s));
    }
    index.put(5_001, id(5_001));
    index.put(5_000, id(5_000));
    assertThat(index.get(5_000)).contains(id(5_000));
  }

  @Test
  void aGapIsNotHeld() {
    SealedIndex index = new SealedIndex(new ReceiptIds(), 0);
    index.put(0, id(0));
    index.put(2, id(2));
    assertThat(index.get(1)).isEmpty();
    assertThat(index.get(2)).contains(id(2));
  }

  /** A sequence in the chunk right after the last one allocated is absent, not an error. */
  @Test
  void aSequenceInTheChunkJustPastTheLast_isNotHeld() {
    SealedIndex index = new SealedIndex(ids(0, 1), 1);
    assertThat(index.get(4_095)).isEmpty();
    assertThat(index.get(4_096)).isEmpty();
    assertThat(index.get(8_191)).isEmpty();
  }

  /** Regression: the index copied every recovered id onto the heap, 33 bytes a receipt. */
  @Test
  void recoveredReceipts_areReadWhereTheyAre_notCopied() {
    SealedIndex index = new SealedIndex(ids(0, 10_000), 10_000);
    assertThat(index.heapBytes()).isZero();
    assertThat(index.get(9_999)).contains(id(9_999));
  }

  @Test
  void adopt_ofTheSameIds_dropsTheChunksTheyCover_andStillHoldsEveryReceipt() {
    SealedIndex index = new SealedIndex(new ReceiptIds(), 0);
    for (long s = 10_000; s >= 0; s--) {
      index.put(s, id(s));
    }
    long before = index.heapBytes();

    assertThat(index.adopt(ids(0, 9_000))).isTrue();

    assertThat(index.heapBytes()).isEqualTo(before - 2L * 4096 * 33);
    for (long s = 0; s <= 10_000; s++) {
      assertThat(index.get(s)).as("receipt %d", s).contains(id(s));
    }
    index.put(10_001, id(10_001));
    assertThat(index.get(10_001)).contains(id(10_001));
  }

  @Test
  void adopt_ofOtherIds_fewerIds_orIdsFromElsewhere_changesNothing() {
    SealedIndex index = new SealedIndex(ids(0, 5_000), 5_000);
    ReceiptIds other = new ReceiptIds();
    for (long s = 0; s < 6_000; s++) {
      other.add(s, id(s + 1));
    }
    assertThat(index.adopt(other)).as("another last id").isFalse();
    assertThat(index.adopt(ids(0, 4_000))).as("fewer ids than saved").isFalse();
    assertThat(index.adopt(ids(1, 6_000))).as("another first receipt").isFalse();
    assertThat(index.adopt(ids(0, 6_000))).as("a receipt the index was never told of").isFalse();
    for (long s = 0; s < 5_000; s++) {
      assertThat(index.get(s)).contains(id(s));
    }
    assertThat(index.get(5_000)).isEmpty();
  }
}
